package dev.sluice.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The {@code ./sluice} launcher: {@code demo}, {@code faults}, {@code up} and {@code invoke} on the local stack;
 * {@code plan}, the capacity planner, needs none of it.
 */
public final class SluiceCli {

    static final String UP_LOCK = UpCommand.UP_LOCK;

    private final Map<String, Command> commands = new LinkedHashMap<>();
    private final CliContext context;

    SluiceCli(Path root, PrintStream out, PrintStream err) {
        this.context = new CliContext(root, out, err, new ObjectMapper());
        for (Command command : List.of(
                new DemoCommand(context),
                new FaultsCommand(context),
                new LoadCommand(context),
                new UpCommand(context),
                new InvokeCommand(context),
                new SmokeCommand(context),
                new PlanCommand(context),
                new ColdStartCommand(context),
                new EmulatorCostCommand(context))) {
            commands.put(command.name(), command);
        }
    }

    public static void main(String[] args) {
        Path root =
                Path.of(System.getProperty("sluice.root", ".")).toAbsolutePath().normalize();
        int status = new SluiceCli(root, System.out, System.err).run(List.of(args));
        System.out.flush();
        System.exit(status);
    }

    /** The commands, in the order the usage lists them. */
    List<Command> commands() {
        return List.copyOf(commands.values());
    }

    /** The usage text, made of every command's lines. */
    String usage() {
        return "usage: ./sluice <command> [options]\n"
                + commands.values().stream().map(Command::usage).collect(Collectors.joining("\n"))
                + "\n  ./sluice --iam off <command> (or SLUICE_IAM=off): the local stack does not enforce IAM (default: on)"
                + "\n  ./sluice --limits off <command> (or SLUICE_LIMITS=off): the local stack does not enforce AWS's"
                + " Kinesis per-shard limits (default: on)";
    }

    /** The commands that run the local stack (and say so when IAM is off). */
    private static final java.util.Set<String> LOCAL_STACK_COMMANDS =
            java.util.Set.of("demo", "faults", "load", "up", "invoke", "smoke", "bench");

    /**
     * Takes a leading {@code --NAME on|off} (or {@code --NAME=off}) off the arguments and applies it
     * to the local stacks this JVM starts, through the system property.
     */
    private static List<String> onOffSwitch(List<String> args, String name, String property) {
        List<String> rest = new java.util.ArrayList<>(args);
        for (int i = 0; i < rest.size(); i++) {
            String arg = rest.get(i);
            String value = null;
            if (arg.equals(name)) {
                if (i + 1 >= rest.size()) {
                    throw new UsageException(name + " needs on or off");
                }
                value = rest.remove(i + 1);
                rest.remove(i);
            } else if (arg.startsWith(name + "=")) {
                value = arg.substring(name.length() + 1);
                rest.remove(i);
            } else {
                continue;
            }
            if (!value.equals("on") && !value.equals("off")) {
                throw new UsageException(name + " takes on or off, not '" + value + "'");
            }
            System.setProperty(property, value);
            break;
        }
        return rest;
    }

    int run(List<String> args) {
        try {
            args = onOffSwitch(args, "--iam", dev.sluice.emulators.LocalAwsOptions.IAM_PROPERTY);
            args = onOffSwitch(args, "--limits", dev.sluice.emulators.LocalAwsOptions.LIMITS_PROPERTY);
            if (args.isEmpty()) {
                throw new UsageException("no command given");
            }
            String name = args.get(0);
            if (LOCAL_STACK_COMMANDS.contains(name) && !dev.sluice.emulators.LocalAwsOptions.iamEnforcedByDefault()) {
                context.out()
                        .println("IAM enforcement is OFF (--iam off or SLUICE_IAM=off): the local stack allows every"
                                + " call of every principal");
            }
            if (LOCAL_STACK_COMMANDS.contains(name)
                    && !dev.sluice.emulators.LocalAwsOptions.limitsEnforcedByDefault()) {
                context.out()
                        .println("AWS limits are OFF (--limits off or SLUICE_LIMITS=off): Kinesis takes more than"
                                + " 1,000 records/s or 1 MiB/s per shard, which AWS would throttle");
            }
            if (List.of("help", "--help", "-h").contains(name)) {
                context.out().println(usage());
                return 0;
            }
            Command command = commands.get(name);
            if (command == null) {
                throw new UsageException("unknown command '" + name + "'");
            }
            return command.run(new Arguments(name, args.subList(1, args.size()), command.options(), command.flags()));
        } catch (UsageException e) {
            context.err().println("sluice: " + e.getMessage());
            context.err().println(usage());
            return 2;
        } catch (Exception e) {
            context.err().println("sluice: " + e.getMessage());
            return 1;
        }
    }
}
