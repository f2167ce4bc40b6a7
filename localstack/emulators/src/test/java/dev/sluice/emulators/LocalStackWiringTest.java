package dev.sluice.emulators;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.testcontainers.containers.localstack.LocalStackContainer;
import org.testcontainers.utility.DockerImageName;
import software.amazon.awssdk.regions.Region;

/**
 * The wiring of {@code -Psluice-localstack} without Docker: a container's endpoint, region and
 * credentials become the {@link LocalAws} every IT gets, the image is pinned, and a missing auth
 * token stops the run with one line before anything starts. No container is started (or even
 * constructed: LocalStackContainer's constructor already asks Docker) here.
 */
class LocalStackWiringTest {

    private static final URI EDGE = URI.create("http://127.0.0.1:49153");

    @Test
    void aContainersEndpointRegionAndCredentialsBecomeEveryServiceOfTheLocalAws() {
        LocalStackAws.Started container = new LocalStackAws.Started() {
            @Override
            public URI getEndpoint() {
                return EDGE; // what a started container answers: its host and mapped edge port
            }

            @Override
            public String getRegion() {
                return "eu-central-1";
            }

            @Override
            public String getAccessKey() {
                return "AKIALOCALSTACK";
            }

            @Override
            public String getSecretKey() {
                return "ls-secret";
            }
        };
        AtomicInteger stopped = new AtomicInteger();

        LocalAws aws = LocalAws.attach(
                LocalStackAws.endpoints(container), stopped::incrementAndGet, LocalAwsOptions.defaults());
        try {
            for (Emulator service : Emulator.values()) {
                assertThat(aws.endpoint(service)).as(service.displayName()).isEqualTo(EDGE);
            }
            assertThat(aws.kinesisTlsEndpoint()).isEqualTo(EDGE);
            assertThat(aws.region()).isEqualTo(Region.EU_CENTRAL_1);
            assertThat(aws.credentialsProvider().resolveCredentials().accessKeyId())
                    .isEqualTo("AKIALOCALSTACK");
            assertThat(aws.credentialsProvider().resolveCredentials().secretAccessKey())
                    .isEqualTo("ls-secret");
            assertThat(aws.kinesis().serviceClientConfiguration().endpointOverride())
                    .contains(EDGE);
            assertThat(aws.dynamoDb().serviceClientConfiguration().endpointOverride())
                    .contains(EDGE);
            assertThat(aws.s3().serviceClientConfiguration().endpointOverride()).contains(EDGE);
            assertThat(aws.sqs().serviceClientConfiguration().endpointOverride())
                    .contains(EDGE);
            assertThat(aws.sqs().serviceClientConfiguration().region()).isEqualTo(Region.EU_CENTRAL_1);
            assertThat(aws.iamEnforced())
                    .as("no access gate stands before LocalStack")
                    .isFalse();
            assertThat(aws.childProcesses()).isEmpty();
            assertThat(aws.lambdaEnvironment())
                    .containsEntry("AWS_REGION", "eu-central-1")
                    .containsEntry("AWS_ACCESS_KEY_ID", "AKIALOCALSTACK")
                    .containsEntry("AWS_SECRET_ACCESS_KEY", "ls-secret")
                    .containsEntry("AWS_ENDPOINT_URL_KINESIS", EDGE.toString())
                    .containsEntry("AWS_ENDPOINT_URL_SQS", EDGE.toString());
            assertThatThrownBy(aws::restartKinesis)
                    .isInstanceOf(LocalAwsException.class)
                    .hasMessageContaining("only the local emulators restart");
            assertThat(stopped).hasValue(0);
        } finally {
            aws.close();
        }
        assertThat(stopped).as("closing the LocalAws stops the container").hasValue(1);
        aws.close();
        assertThat(stopped).hasValue(1);
    }

    @Test
    void theImageIsLocalStacksPinnedByTagAndDigestUnlessOverridden() {
        DockerImageName pinned = LocalStackAws.image(null);
        assertThat(LocalStackAws.IMAGE).startsWith("localstack/localstack:2026.07.0@sha256:");
        assertThat(LocalStackAws.IMAGE.substring(LocalStackAws.IMAGE.indexOf("@sha256:") + 8))
                .matches("[0-9a-f]{64}");
        assertThat(pinned.getVersionPart()).as("pulled by digest").startsWith("sha256:2a81e5da");
        assertThat(pinned.isCompatibleWith(DockerImageName.parse("localstack/localstack")))
                .isTrue();
        assertThat(LocalStackAws.image(" ").getVersionPart()).isEqualTo(pinned.getVersionPart());

        DockerImageName other = LocalStackAws.image("localstack/localstack:4.14.0");
        assertThat(other.getVersionPart()).isEqualTo("4.14.0");
        assertThat(other.isCompatibleWith(DockerImageName.parse("localstack/localstack")))
                .isTrue();
    }

    @Test
    void theContainerGetsTheAuthTokenAndTheFourServices() {
        assertThat(LocalStackAws.environment("ls-token-123"))
                .containsExactly(Map.entry("LOCALSTACK_AUTH_TOKEN", "ls-token-123"));
        assertThat(LocalStackAws.services())
                .containsExactly(
                        LocalStackContainer.Service.KINESIS,
                        LocalStackContainer.Service.DYNAMODB,
                        LocalStackContainer.Service.S3,
                        LocalStackContainer.Service.SQS);
    }

    @Test
    void aMissingOrBlankAuthTokenIsOneLineSayingWhatToSet() {
        String line = "LOCALSTACK_AUTH_TOKEN is not set: the LocalStack image img does not start without an auth token"
                + " (https://docs.localstack.cloud/getting-started/auth-token/); export it, or build without"
                + " -Psluice-localstack to use the local emulators";
        assertThatThrownBy(() -> LocalStackProfile.authToken(Map.of(), "img"))
                .isInstanceOf(LocalAwsException.class)
                .hasMessage(line);
        assertThatThrownBy(() -> LocalStackProfile.authToken(Map.of("LOCALSTACK_AUTH_TOKEN", "  "), "img"))
                .hasMessage(line);
        assertThat(LocalStackProfile.authToken(Map.of("LOCALSTACK_AUTH_TOKEN", " ls-abc \n"), "img"))
                .isEqualTo("ls-abc");
    }

    @Test
    void onlyTheProfilesPropertySelectsLocalStack() {
        String before = System.getProperty(LocalStackProfile.SELECT_PROPERTY);
        try {
            System.clearProperty(LocalStackProfile.SELECT_PROPERTY);
            assertThat(LocalStackProfile.selected()).isFalse();
            System.setProperty(LocalStackProfile.SELECT_PROPERTY, "emulators");
            assertThat(LocalStackProfile.selected()).isFalse();
            System.setProperty(LocalStackProfile.SELECT_PROPERTY, "localstack");
            assertThat(LocalStackProfile.selected()).isTrue();
        } finally {
            if (before == null) {
                System.clearProperty(LocalStackProfile.SELECT_PROPERTY);
            } else {
                System.setProperty(LocalStackProfile.SELECT_PROPERTY, before);
            }
        }
    }
}
