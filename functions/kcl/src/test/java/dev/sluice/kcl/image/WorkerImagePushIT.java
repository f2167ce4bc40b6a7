package dev.sluice.kcl.image;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Pushes the worker image the way profile {@code worker-image-push} does ({@code src/image/push-index.sh},
 * buildah) to a real registry on the loopback interface — Debian's {@code docker-registry}
 * (distribution 2.8.2) on a free port, storing in a temporary folder — and reads it back over the
 * registry's HTTP API v2 as a container runtime would: the OCI image index by the revision tag, which
 * names exactly linux/arm64 and linux/amd64; each platform's manifest (the very image Jib wrote and
 * {@link WorkerImageIT} checks), its configuration (non-root user, entrypoint, revision label) and
 * every layer blob, each against its digest; and the digest file the script writes for CDK equals the
 * index's digest. Needs {@code buildah} and {@code docker-registry} on the PATH ({@code .ci/run}
 * installs both).
 */
class WorkerImagePushIT {

    private static final ObjectMapper JSON = new ObjectMapper();

    private static final Path IMAGES = Path.of(System.getProperty("sluice.image.dir", "target/jib"));

    private static final Path PUSH = Path.of("src/image/push-index.sh");

    private static final String OCI_INDEX = "application/vnd.oci.image.index.v1+json";

    private static final String OCI_MANIFEST = "application/vnd.oci.image.manifest.v1+json";

    private static final Duration REGISTRY_START = Duration.ofSeconds(60);

    private static final HttpClient HTTP =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @TempDir
    static Path registryDir;

    private static Process registry;

    private static String host;

    @BeforeAll
    static void startRegistry() throws Exception {
        for (String tool : List.of("buildah", "docker-registry")) {
            assertThat(onPath(tool))
                    .as(
                            "%s is needed to push the worker image and to check the push (Debian/Ubuntu: apt-get"
                                    + " install buildah docker-registry; .ci/run installs them)",
                            tool)
                    .isTrue();
        }
        int port;
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = socket.getLocalPort();
        }
        host = "127.0.0.1:" + port;
        Path config = registryDir.resolve("config.yml");
        Files.writeString(
                config,
                String.join(
                        "\n",
                        "version: 0.1",
                        "log:",
                        "  level: warn",
                        "  accesslog:",
                        "    disabled: true",
                        "storage:",
                        "  filesystem:",
                        "    rootdirectory: " + registryDir.resolve("data"),
                        "http:",
                        "  addr: " + host,
                        "  secret: " + UUID.randomUUID(),
                        ""));
        Path log = registryDir.resolve("registry.log");
        registry = new ProcessBuilder("docker-registry", "serve", config.toString())
                .redirectErrorStream(true)
                .redirectOutput(log.toFile())
                .start();
        try {
            await("docker-registry answering /v2/ on " + host)
                    .atMost(REGISTRY_START)
                    .pollInterval(Duration.ofMillis(100))
                    .until(() -> {
                        if (!registry.isAlive()) {
                            fail("docker-registry exited with %d: %s", registry.exitValue(), Files.readString(log));
                        }
                        try {
                            return get("/v2/", "application/json").statusCode() == 200;
                        } catch (IOException notYetListening) {
                            return false;
                        }
                    });
        } catch (ConditionTimeoutException late) {
            fail(
                    "docker-registry did not answer /v2/ on %s within %s: %s",
                    host, REGISTRY_START, Files.readString(log));
        }
    }

    @AfterAll
    static void stopRegistry() throws InterruptedException {
        if (registry != null) {
            registry.destroy();
            if (!registry.waitFor(10, TimeUnit.SECONDS)) {
                registry.destroyForcibly().waitFor();
            }
        }
    }

    @Test
    void pushesBothPlatformImagesAndOneIndexTaggedWithTheRevision(@TempDir Path dir) throws Exception {
        String revision = System.getProperty("sluice.image.revision");
        assertThat(revision).as("sluice.image.revision (profile worker-image)").matches("[0-9a-f]{40}");
        Path digestFile = dir.resolve("sluice-kcl.pushed.digest");

        Result push = push(host + "/sluice-kcl", revision, IMAGES, digestFile, dir);
        assertThat(push.exit()).as("push-index.sh: %s", push.output()).isZero();

        // the index, by the revision tag
        HttpResponse<byte[]> response = get("/v2/sluice-kcl/manifests/" + revision, OCI_INDEX);
        assertThat(response.statusCode()).as("index %s", revision).isEqualTo(200);
        assertThat(response.headers().firstValue("Content-Type")).hasValue(OCI_INDEX);
        String indexDigest = "sha256:" + WorkerImageIT.sha256(response.body());
        assertThat(response.headers().firstValue("Docker-Content-Digest")).hasValue(indexDigest);
        // the digest written for CDK (-c sluice:kclImage=<repository>@<digest>) is the index's
        assertThat(Files.readString(digestFile).strip()).isEqualTo(indexDigest);
        JsonNode index = JSON.readTree(response.body());
        assertThat(index.get("schemaVersion").asInt()).isEqualTo(2);
        assertThat(index.get("mediaType").asText()).isEqualTo(OCI_INDEX);

        // exactly the two platforms
        Map<String, JsonNode> platforms = new LinkedHashMap<>();
        index.get("manifests")
                .forEach(descriptor -> platforms.put(
                        descriptor.get("platform").get("os").asText() + "/"
                                + descriptor.get("platform").get("architecture").asText(),
                        descriptor));
        assertThat(index.get("manifests")).hasSize(2);
        assertThat(platforms.keySet()).containsExactlyInAnyOrder("linux/arm64", "linux/amd64");

        for (String arch : List.of("arm64", "amd64")) {
            JsonNode descriptor = platforms.get("linux/" + arch);
            assertThat(descriptor.get("mediaType").asText()).isEqualTo(OCI_MANIFEST);
            // the image Jib wrote to the tarball, unchanged (WorkerImageIT checks it in depth)
            String digest = descriptor.get("digest").asText();
            assertThat(digest)
                    .as("%s manifest", arch)
                    .isEqualTo(Files.readString(IMAGES.resolve("sluice-kcl-" + arch + ".digest"))
                            .strip());
            JsonNode manifest = JSON.readTree(blob("/v2/sluice-kcl/manifests/", descriptor, OCI_MANIFEST));
            assertThat(manifest.get("mediaType").asText()).isEqualTo(OCI_MANIFEST);

            JsonNode config = JSON.readTree(blob("/v2/sluice-kcl/blobs/", manifest.get("config"), "*/*"));
            assertThat(config.get("architecture").asText()).isEqualTo(arch);
            assertThat(config.get("os").asText()).isEqualTo("linux");
            JsonNode container = config.get("config");
            assertThat(container.get("User").asText()).isEqualTo("65532:65532");
            assertThat(WorkerImageIT.strings(container.get("Entrypoint")))
                    .startsWith("/usr/bin/java")
                    .endsWith("-jar", "/deployments/quarkus-run.jar");
            assertThat(container
                            .get("Labels")
                            .get("org.opencontainers.image.revision")
                            .asText())
                    .isEqualTo(revision);

            // every layer is in the registry, whole
            assertThat(manifest.get("layers")).hasSize(4);
            for (JsonNode layer : manifest.get("layers")) {
                assertThat(streamedDigest(layer))
                        .as("%s layer %s", arch, layer.get("digest").asText())
                        .isEqualTo(layer.get("digest").asText());
            }
        }
        assertThat(WorkerImageIT.strings(JSON.readTree(get("/v2/sluice-kcl/tags/list", "application/json")
                                .body())
                        .get("tags")))
                .containsExactly(revision);
    }

    @Test
    void aMissingPlatformStopsThePushBeforeAnythingIsPushed(@TempDir Path dir) throws Exception {
        Path onlyArm = Files.createDirectory(dir.resolve("jib"));
        Files.createSymbolicLink(
                onlyArm.resolve("sluice-kcl-arm64.tar"),
                IMAGES.resolve("sluice-kcl-arm64.tar").toAbsolutePath());
        Path digestFile = dir.resolve("sluice-kcl.pushed.digest");

        Result push = push(host + "/sluice-kcl-one-platform", "r1", onlyArm, digestFile, dir);

        assertThat(push.exit()).as(push.output()).isNotZero();
        assertThat(push.output()).contains("push-index: " + onlyArm.resolve("sluice-kcl-amd64.tar") + " is missing");
        assertThat(digestFile).doesNotExist();
        assertThat(get("/v2/sluice-kcl-one-platform/tags/list", "application/json")
                        .statusCode())
                .isEqualTo(404);
    }

    private record Result(int exit, String output) {}

    /** Runs the profile's push script, as the profile does. */
    private static Result push(String repository, String tag, Path images, Path digestFile, Path dir)
            throws IOException, InterruptedException {
        Path output = Files.createTempFile(dir, "push", ".log");
        Process process = new ProcessBuilder(
                        "bash", PUSH.toString(), repository, tag, images.toString(), digestFile.toString())
                .redirectErrorStream(true)
                .redirectOutput(output.toFile())
                .start();
        if (!process.waitFor(5, TimeUnit.MINUTES)) {
            process.destroyForcibly().waitFor();
            fail("push-index.sh did not finish: %s", Files.readString(output));
        }
        return new Result(process.exitValue(), Files.readString(output, StandardCharsets.UTF_8));
    }

    private static HttpResponse<byte[]> get(String path, String accept) throws IOException, InterruptedException {
        return HTTP.send(
                HttpRequest.newBuilder(URI.create("http://" + host + path))
                        .header("Accept", accept)
                        .timeout(Duration.ofSeconds(30))
                        .build(),
                HttpResponse.BodyHandlers.ofByteArray());
    }

    /** A manifest or blob a descriptor points to, checked against its digest and size. */
    private static byte[] blob(String prefix, JsonNode descriptor, String accept) throws Exception {
        String digest = descriptor.get("digest").asText();
        HttpResponse<byte[]> response = get(prefix + digest, accept);
        assertThat(response.statusCode()).as(digest).isEqualTo(200);
        assertThat((long) response.body().length)
                .as(digest)
                .isEqualTo(descriptor.get("size").asLong());
        assertThat("sha256:" + WorkerImageIT.sha256(response.body())).isEqualTo(digest);
        return response.body();
    }

    /** The digest of a layer blob as the registry serves it, read as a stream (the layers are large). */
    private static String streamedDigest(JsonNode descriptor) throws Exception {
        HttpResponse<InputStream> response = HTTP.send(
                HttpRequest.newBuilder(URI.create("http://" + host + "/v2/sluice-kcl/blobs/"
                                + descriptor.get("digest").asText()))
                        .timeout(Duration.ofMinutes(2))
                        .build(),
                HttpResponse.BodyHandlers.ofInputStream());
        MessageDigest sha256 = MessageDigest.getInstance("SHA-256");
        long size = 0;
        try (InputStream in = response.body()) {
            byte[] buffer = new byte[1 << 16];
            for (int n = in.read(buffer); n >= 0; n = in.read(buffer)) {
                sha256.update(buffer, 0, n);
                size += n;
            }
        }
        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(size).isEqualTo(descriptor.get("size").asLong());
        return "sha256:" + HexFormat.of().formatHex(sha256.digest());
    }

    private static boolean onPath(String tool) {
        for (String dir : System.getenv().getOrDefault("PATH", "").split(":")) {
            if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, tool))) {
                return true;
            }
        }
        return false;
    }
}
