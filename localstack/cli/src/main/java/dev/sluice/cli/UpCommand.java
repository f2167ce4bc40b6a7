package dev.sluice.cli;

import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.core.definition.PipelineDefinition;
import dev.sluice.emulators.LocalAws;
import dev.sluice.local.LocalPipeline;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;

/** {@code ./sluice up}: local AWS with every pipeline deployed, until Ctrl-C. */
final class UpCommand implements Command {

    private final CliContext context;

    UpCommand(CliContext context) {
        this.context = context;
    }

    @Override
    public String name() {
        return "up";
    }

    @Override
    public String usage() {
        return String.join(
                "\n",
                "  up [--workers N]               start local AWS with every pipeline deployed (N local KCL workers per KCL stage, default 1); stop with Ctrl-C");
    }

    @Override
    public Set<String> options() {
        return Set.of("workers");
    }

    /** The lock of a running {@code up}, beside the endpoints file it writes. */
    static final String UP_LOCK = "localstack/.run/up.lock";

    private static final String ENDPOINTS = "localstack/.run/endpoints.json";

    @Override
    public int run(Arguments args) {
        int workers = args.positiveInt("workers", 1, 10);
        // one instance at a time: a second would overwrite endpoints.json, which then points at dead
        // ports once either stops
        RunLock lock;
        try {
            lock = RunLock.acquire(context.root().resolve(UP_LOCK), UP_LOCK);
        } catch (RunLock.HeldException e) {
            context.err().println("sluice: " + e.getMessage());
            return 1;
        }
        Path file = context.root().resolve(ENDPOINTS);
        LocalAws aws;
        List<PipelineDefinition> pipelines;
        try {
            pipelines = context.loader().loadAll(context.root().resolve("pipelines"));
            aws = LocalAws.start(context.options());
        } catch (RuntimeException e) {
            lock.close();
            throw e;
        }
        List<LocalPipeline> running = new ArrayList<>();
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime()
                .addShutdownHook(new Thread(
                        () -> {
                            running.forEach(LocalPipeline::close);
                            aws.close();
                            try {
                                // its ports are closed now: no file may point at them
                                Files.deleteIfExists(file);
                                Files.deleteIfExists(file.resolveSibling("aws/credentials"));
                                Files.deleteIfExists(file.resolveSibling("aws/config"));
                            } catch (IOException e) {
                                // left for the next up to overwrite
                            }
                            lock.close();
                            stopped.countDown();
                        },
                        "sluice-up-shutdown"));
        ObjectNode endpoints = context.mapper().createObjectNode();
        endpoints.put("region", aws.region().id());
        endpoints.put("accessKeyId", LocalAws.ACCESS_KEY_ID);
        endpoints.put("secretAccessKey", LocalAws.SECRET_ACCESS_KEY);
        endpoints.put("kinesis", aws.kinesisEndpoint().toString());
        endpoints.put("dynamodb", aws.dynamoDbEndpoint().toString());
        endpoints.put("s3", aws.s3Endpoint().toString());
        endpoints.put("sqs", aws.sqsEndpoint().toString());
        endpoints.put("iam", aws.iamEnforced() ? "enforced" : "off");
        ObjectNode perPipeline = endpoints.putObject("pipelines");
        dev.sluice.local.iam.PersonaProfiles profiles = new dev.sluice.local.iam.PersonaProfiles(aws);
        for (PipelineDefinition definition : pipelines) {
            LocalPipeline pipeline = LocalPipeline.provision(aws, definition, null, context.root())
                    .withKclWorkers(workers, dev.sluice.local.kcl.KclTimings.LOCAL)
                    .start();
            running.add(pipeline);
            pipeline.accessModel().ifPresent(model -> profiles.add(definition.pipeline(), model));
            context.out().println(DemoCommand.provisioned(pipeline));
            var resources = pipeline.resources();
            ObjectNode p = perPipeline.putObject(definition.pipeline());
            p.put("template", resources.stackName()); // provisioned from this stack's synthesized template
            p.set("streams", context.mapper().valueToTree(resources.streams()));
            p.set("tables", context.mapper().valueToTree(resources.tables()));
            p.put("bucket", resources.bucket());
            p.set("queues", context.mapper().valueToTree(resources.queueUrls()));
            Map<String, String> skipped = pipeline.notRunLocally();
            p.set(
                    "functions",
                    context.mapper()
                            .valueToTree(resources.functions().keySet().stream()
                                    .filter(stage -> !skipped.containsKey(stage))
                                    .map(pipeline::functionName)
                                    .toList()));
            if (!resources.kclServices().isEmpty()) {
                ObjectNode services = p.putObject("kclServices");
                resources.kclServices().forEach((stage, service) -> {
                    ObjectNode s = services.putObject(stage);
                    s.put("workers", service.workers());
                    s.set("environment", context.mapper().valueToTree(service.environment()));
                });
            }
            if (!skipped.isEmpty()) {
                p.set("notRunLocally", context.mapper().valueToTree(skipped));
            }
            ObjectNode kcl = context.mapper().createObjectNode();
            definition.stages().forEach((name, stage) -> {
                if (stage.consumer() == dev.sluice.core.definition.ConsumerType.KCL && !skipped.containsKey(name)) {
                    var stageWorkers = pipeline.kclWorkers(name);
                    ObjectNode s = kcl.putObject(name);
                    s.put("leaseTable", stageWorkers.leaseTable());
                    s.set(
                            "workers",
                            context.mapper()
                                    .valueToTree(stageWorkers.workers().stream()
                                            .map(Object::toString)
                                            .toList()));
                }
            });
            if (!kcl.isEmpty()) {
                p.set("kclWorkers", kcl);
            }
        }
        try {
            // it holds the administrator's secret key: rw------- from its creation
            dev.sluice.emulators.PrivateFiles.write(
                    file,
                    context.mapper().enable(SerializationFeature.INDENT_OUTPUT).writeValueAsString(endpoints) + "\n");
        } catch (IOException e) {
            throw new IllegalStateException("cannot write " + file + ": " + e.getMessage(), e);
        }
        context.out()
                .printf(
                        Locale.ROOT,
                        "local AWS is up (%,d ms), pipelines deployed: %s%n",
                        aws.stackStartupMillis(),
                        pipelines.stream().map(PipelineDefinition::pipeline).toList());
        context.out().println(endpoints.toPrettyString());
        context.out().println("written to " + context.root().relativize(file));
        if (aws.iamEnforced()) {
            Path profileDirectory = profiles.write(file.getParent().resolve("aws"));
            context.out()
                    .println("IAM is enforced: each persona acts as its role (access key ids below; keys in "
                            + context.root().relativize(profileDirectory) + "/credentials, endpoints in its config)");
            profiles.accessKeyIds()
                    .forEach((profile, key) -> context.out().printf(Locale.ROOT, "  %-32s %s%n", profile, key));
            context.out()
                    .printf(
                            Locale.ROOT,
                            "  export AWS_SHARED_CREDENTIALS_FILE=%s AWS_CONFIG_FILE=%s%n"
                                    + "  aws --profile %s-analyst --endpoint-url %s dynamodb scan --table-name %s%n",
                            profileDirectory.resolve("credentials"),
                            profileDirectory.resolve("config"),
                            running.isEmpty()
                                    ? "PIPELINE"
                                    : running.get(0).resources().definition().pipeline(),
                            aws.dynamoDbEndpoint(),
                            running.isEmpty()
                                            || running.get(0)
                                                    .resources()
                                                    .tables()
                                                    .isEmpty()
                                    ? "TABLE"
                                    : running.get(0)
                                            .resources()
                                            .tables()
                                            .values()
                                            .iterator()
                                            .next());
        }
        // physical names, as CloudFormation generates them (the definitions' names → these: endpoints.json)
        String firstStream = running.isEmpty()
                ? "STREAM"
                : running.get(0).resources().streams().values().iterator().next();
        context.out()
                .printf(
                        Locale.ROOT,
                        """
                Try it with the AWS CLI:
                  export AWS_ACCESS_KEY_ID=%s AWS_SECRET_ACCESS_KEY=%s AWS_DEFAULT_REGION=%s
                  aws --endpoint-url %s kinesis put-record --stream-name %s --partition-key k1 \\
                      --cli-binary-format raw-in-base64-out --data file://event.json
                Stop with Ctrl-C.%n""",
                        LocalAws.ACCESS_KEY_ID,
                        LocalAws.SECRET_ACCESS_KEY,
                        aws.region().id(),
                        aws.kinesisEndpoint(),
                        firstStream);
        try {
            stopped.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return 0;
    }
}
