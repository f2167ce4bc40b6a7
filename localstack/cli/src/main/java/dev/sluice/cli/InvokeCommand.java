package dev.sluice.cli;

import dev.sluice.core.definition.PipelineDefinition;
import dev.sluice.emulators.LocalAws;
import dev.sluice.local.LocalPipeline;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;

/** {@code ./sluice invoke}: a stage's handler once on a Kinesis event file. */
final class InvokeCommand implements Command {

    private final CliContext context;

    InvokeCommand(CliContext context) {
        this.context = context;
    }

    @Override
    public String name() {
        return "invoke";
    }

    @Override
    public String usage() {
        return String.join(
                "\n",
                "  invoke --event FILE [--pipeline P] [--stage S]",
                "                                 run a stage's handler once on a Kinesis event JSON file");
    }

    @Override
    public Set<String> options() {
        return Set.of("event", "pipeline", "stage");
    }

    @Override
    public int run(Arguments args) {
        String eventFile = args.get("event");
        if (eventFile == null) {
            throw new UsageException("invoke needs --event FILE");
        }
        String event;
        try {
            event = Files.readString(Path.of(eventFile), StandardCharsets.UTF_8);
            String problem = dev.sluice.local.esm.KinesisEventJson.problem(
                    context.mapper().readTree(event));
            if (problem != null) {
                throw new UsageException(eventFile + " is not a Kinesis event: " + problem);
            }
        } catch (NoSuchFileException e) {
            throw new UsageException("no such file: " + eventFile);
        } catch (IOException e) {
            throw new UsageException(eventFile + " is not JSON: "
                    + e.getMessage().lines().findFirst().orElse(""));
        }
        List<PipelineDefinition> pipelines =
                context.loader().loadAll(context.root().resolve("pipelines"));
        PipelineDefinition pipeline = pick(pipelines, args.get("pipeline"));
        String stage = args.get("stage", pipeline.stages().keySet().iterator().next());
        if (!pipeline.stages().containsKey(stage)) {
            throw new UsageException("pipeline '" + pipeline.pipeline() + "' has no stage '" + stage + "' (stages: "
                    + pipeline.stages().keySet() + ")");
        }
        try (LocalAws aws = LocalAws.start(context.options());
                LocalPipeline local = LocalPipeline.provision(aws, pipeline, null, context.root())) {
            if (!local.resources().functions().containsKey(stage)) {
                throw new UsageException("stage '" + stage + "' of pipeline '" + pipeline.pipeline()
                        + "' has no Lambda function in its template (consumer "
                        + pipeline.stage(stage).consumer().yamlName() + "); invoke runs Lambda stages");
            }
            String response = local.function(stage).invoke(event);
            context.out().println(response);
            return 0;
        } catch (dev.sluice.local.esm.LocalFunction.FunctionError e) {
            context.err().println("sluice: function error: " + e.getMessage());
            return 1;
        }
    }

    private static PipelineDefinition pick(List<PipelineDefinition> pipelines, String name) {
        if (name == null) {
            if (pipelines.size() != 1) {
                throw new UsageException("several pipelines: choose one with --pipeline "
                        + pipelines.stream().map(PipelineDefinition::pipeline).toList());
            }
            return pipelines.get(0);
        }
        return pipelines.stream()
                .filter(p -> p.pipeline().equals(name))
                .findFirst()
                .orElseThrow(() -> new UsageException("no pipeline '" + name + "' in pipelines/ (pipelines: "
                        + pipelines.stream().map(PipelineDefinition::pipeline).toList() + ")"));
    }
}
