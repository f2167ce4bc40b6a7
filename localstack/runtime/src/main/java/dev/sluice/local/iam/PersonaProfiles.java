package dev.sluice.local.iam;

import dev.sluice.emulators.LocalAws;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * An AWS CLI credentials and config file with one profile per persona of each deployed pipeline
 * ({@code <pipeline>-<persona>}, e.g. {@code payments-analyst}) and {@code local-admin} (the stack's
 * own key), with the region and the local endpoints (per-service {@code endpoint_url}, AWS CLI 2.13
 * and later; older CLIs take {@code --endpoint-url}):
 *
 * <pre>
 * AWS_SHARED_CREDENTIALS_FILE=localstack/.run/aws/credentials AWS_CONFIG_FILE=localstack/.run/aws/config \
 *     aws --profile payments-analyst dynamodb scan --table-name payments-by-id
 * </pre>
 */
public final class PersonaProfiles {

    /** Profile name → (access key id, secret key). */
    private final Map<String, String[]> profiles = new LinkedHashMap<>();

    private final LocalAws aws;

    public PersonaProfiles(LocalAws aws) {
        this.aws = aws;
        profiles.put("local-admin", new String[] {LocalAws.ACCESS_KEY_ID, LocalAws.SECRET_ACCESS_KEY});
    }

    /** Adds the personas of a pipeline's access model. */
    public PersonaProfiles add(String pipeline, AccessModel model) {
        model.personas()
                .forEach((persona, principal) -> profiles.put(
                        pipeline + "-" + persona, new String[] {principal.accessKeyId(), principal.secretAccessKey()}));
        return this;
    }

    /** The profiles with their access key ids. */
    public Map<String, String> accessKeyIds() {
        Map<String, String> out = new LinkedHashMap<>();
        profiles.forEach((name, keys) -> out.put(name, keys[0]));
        return out;
    }

    /**
     * Writes {@code credentials} (mode {@code rw-------}: it holds every persona's secret key) and
     * {@code config} into the directory; returns it.
     */
    public Path write(Path directory) {
        StringBuilder credentials = new StringBuilder();
        StringBuilder config = new StringBuilder();
        profiles.forEach((name, keys) -> {
            credentials
                    .append('[')
                    .append(name)
                    .append("]\naws_access_key_id = ")
                    .append(keys[0])
                    .append("\naws_secret_access_key = ")
                    .append(keys[1])
                    .append("\n\n");
            config.append("[profile ")
                    .append(name)
                    .append("]\nregion = ")
                    .append(aws.region().id())
                    .append("\nservices = sluice-local\n\n");
        });
        config.append("[services sluice-local]\n");
        config.append("kinesis =\n  endpoint_url = ")
                .append(aws.kinesisEndpoint())
                .append('\n');
        config.append("dynamodb =\n  endpoint_url = ")
                .append(aws.dynamoDbEndpoint())
                .append('\n');
        config.append("s3 =\n  endpoint_url = ").append(aws.s3Endpoint()).append('\n');
        config.append("sqs =\n  endpoint_url = ").append(aws.sqsEndpoint()).append('\n');
        try {
            Files.createDirectories(directory);
            // the secret keys: readable by this user only (rw-------), created so
            dev.sluice.emulators.PrivateFiles.write(directory.resolve("credentials"), credentials.toString());
            Files.writeString(directory.resolve("config"), config.toString());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the AWS CLI profiles into " + directory, e);
        }
        return directory;
    }
}
