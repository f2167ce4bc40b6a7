package dev.sluice.emulators;

import java.util.Map;

/**
 * Whether the ITs run against LocalStack in a container ({@link LocalStackAws}) instead of the local
 * emulators, and the auth token that needs. Free of Testcontainers: this is loaded by every IT, the
 * container code only under the profile {@code -Psluice-localstack}.
 */
public final class LocalStackProfile {

    /** The system property that selects LocalStack for the ITs ({@code localstack}); the profile sets it. */
    public static final String SELECT_PROPERTY = "sluice.aws";

    /** The environment variable holding the LocalStack auth token. */
    public static final String AUTH_TOKEN = "LOCALSTACK_AUTH_TOKEN";

    private LocalStackProfile() {}

    /** Whether the ITs are to run against LocalStack ({@value #SELECT_PROPERTY}{@code =localstack}). */
    public static boolean selected() {
        return "localstack".equals(System.getProperty(SELECT_PROPERTY));
    }

    /**
     * The auth token from the environment.
     *
     * @param image the image that needs it, for the message
     * @throws LocalAwsException with one line saying what to set, when it is absent or blank
     */
    public static String authToken(Map<String, String> environment, String image) {
        String token = environment.get(AUTH_TOKEN);
        if (token == null || token.isBlank()) {
            throw new LocalAwsException(AUTH_TOKEN + " is not set: the LocalStack image " + image
                    + " does not start without an auth token (https://docs.localstack.cloud/getting-started/auth-token/);"
                    + " export it, or build without -Psluice-localstack to use the local emulators");
        }
        return token.trim();
    }
}
