package dev.sluice.emulators;

import java.net.URI;
import java.util.Map;
import org.testcontainers.containers.localstack.LocalStackContainer;
import org.testcontainers.utility.DockerImageName;

/**
 * LocalStack in a container (Testcontainers) behind the {@link LocalAws} interface, for teams that
 * run LocalStack: selected by {@link LocalStackProfile} ({@code -Psluice-localstack}). Needs Docker
 * (Testcontainers finds it as usual) and {@value LocalStackProfile#AUTH_TOKEN} in the environment:
 * current LocalStack images refuse to start without one.
 *
 * <p>Testcontainers is an optional dependency of this module: only the profile puts it on a test
 * classpath, and only {@link #start()} touches it.
 */
public final class LocalStackAws {

    /** Overrides {@link #IMAGE} (tag and digest), e.g. for a newer LocalStack. */
    public static final String IMAGE_PROPERTY = "sluice.localstack.image";

    /**
     * The image, pinned by tag and by the digest of its multi-platform index (LocalStack's tags are
     * calendar versions since 4.14.0; this one needs an auth token). The digest was taken from public
     * references to this tag, not pulled here (no Docker on the build machine).
     */
    public static final String IMAGE =
            "localstack/localstack:2026.07.0@sha256:2a81e5da4c32bb53e8d86e92050a12937f9be1915c5a4afad0931f75c112fc7e";

    /** The services the ITs use. */
    static LocalStackContainer.Service[] services() {
        return new LocalStackContainer.Service[] {
            LocalStackContainer.Service.KINESIS,
            LocalStackContainer.Service.DYNAMODB,
            LocalStackContainer.Service.S3,
            LocalStackContainer.Service.SQS
        };
    }

    private LocalStackAws() {}

    /** The image to run: {@value #IMAGE_PROPERTY} if set, else {@link #IMAGE}. */
    static DockerImageName image(String override) {
        String name = override == null || override.isBlank() ? IMAGE : override.trim();
        // a digest-pinned name is still LocalStack's image for LocalStackContainer's compatibility check
        return DockerImageName.parse(name).asCompatibleSubstituteFor("localstack/localstack");
    }

    /** The container's environment beyond what Testcontainers sets: the auth token. */
    static Map<String, String> environment(String authToken) {
        return Map.of(LocalStackProfile.AUTH_TOKEN, authToken);
    }

    /**
     * What the clients need of a started container: LocalStackContainer's getters (its host and
     * mapped edge port, its region and credentials).
     */
    interface Started {
        URI getEndpoint();

        String getRegion();

        String getAccessKey();

        String getSecretKey();
    }

    /** A started container's endpoint, region and credentials, for {@link LocalAws#attach}. */
    static LocalAws.Endpoints endpoints(Started container) {
        return new LocalAws.Endpoints(
                container.getEndpoint(), container.getRegion(), container.getAccessKey(), container.getSecretKey());
    }

    /**
     * Starts LocalStack in a container and returns it as a {@link LocalAws}; closing that stops the
     * container.
     *
     * @throws LocalAwsException without {@value LocalStackProfile#AUTH_TOKEN}, before anything starts
     */
    public static LocalAws start() {
        DockerImageName image = image(System.getProperty(IMAGE_PROPERTY));
        String token = LocalStackProfile.authToken(System.getenv(), image.asCanonicalNameString());
        // constructing the container already needs Docker: Testcontainers fails here with its own message
        LocalStackContainer container =
                new LocalStackContainer(image).withServices(services()).withEnv(environment(token));
        container.start();
        try {
            Started started = new Started() {
                @Override
                public URI getEndpoint() {
                    return container.getEndpoint();
                }

                @Override
                public String getRegion() {
                    return container.getRegion();
                }

                @Override
                public String getAccessKey() {
                    return container.getAccessKey();
                }

                @Override
                public String getSecretKey() {
                    return container.getSecretKey();
                }
            };
            return LocalAws.attach(endpoints(started), container::stop, LocalAwsOptions.defaults());
        } catch (RuntimeException e) {
            container.stop();
            throw e;
        }
    }
}
