package dev.sluice.aws;

import dev.sluice.aws.sink.DynamoDbReferenceLoader;
import dev.sluice.aws.sink.S3ReferenceLoader;
import dev.sluice.core.definition.EnvironmentNames;
import dev.sluice.core.definition.ReferenceDefinition;
import dev.sluice.core.definition.StepType;
import dev.sluice.core.enrich.ReferenceCache;
import dev.sluice.core.enrich.ReferenceLoader;
import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/** Builds the reference caches a stage's enrich steps read, each over a DynamoDB table or an S3 object. */
final class ReferenceFactory {

    private ReferenceFactory() {}

    /** One cache per reference the stage's enrich steps name, keyed by the reference's name. */
    static Map<String, ReferenceCache> references(StageContext context) {
        Map<String, ReferenceCache> references = new LinkedHashMap<>();
        context.stage().steps().stream()
                .filter(step -> step.type() == StepType.ENRICH)
                .map(step -> step.option("reference"))
                .distinct()
                .forEach(name -> references.put(name, reference(context, name)));
        return references;
    }

    private static ReferenceCache reference(StageContext context, String name) {
        ReferenceDefinition reference = context.pipeline().references().get(name);
        ReferenceLoader loader = reference.table() != null
                ? new DynamoDbReferenceLoader(
                        context.clients().dynamoDb(),
                        context.required(EnvironmentNames.table(reference.table())),
                        reference.key(),
                        context.mapper())
                : new S3ReferenceLoader(
                        context.clients().s3(),
                        context.required(EnvironmentNames.LAKE_BUCKET),
                        reference.object(),
                        reference.key(),
                        context.mapper());
        return new ReferenceCache(
                name,
                loader,
                reference.maxEntries(),
                Duration.ofSeconds(reference.refreshSeconds()),
                Clock.systemUTC());
    }
}
