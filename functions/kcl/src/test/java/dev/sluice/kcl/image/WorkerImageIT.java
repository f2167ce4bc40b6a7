package dev.sluice.kcl.image;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.GZIPInputStream;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Opens the worker image tarballs the build wrote (Jib, {@code target/jib/sluice-kcl-<arch>.tar}: an
 * OCI image layout in a tar) and checks what a container runtime would run: the platform, the
 * non-root user, the entrypoint, the labels, and the layers — the pinned Debian base first and
 * unchanged, then the health probe, the Quarkus application and its libraries; every blob matches
 * its digest.
 */
class WorkerImageIT {

    private static final ObjectMapper JSON = new ObjectMapper();

    private static final Path IMAGES = Path.of(System.getProperty("sluice.image.dir", "target/jib"));

    /** ELF machine numbers (e_machine) of the two platforms. */
    private static final Map<String, Integer> ELF_MACHINE = Map.of("amd64", 62, "arm64", 183);

    /** The Debian 13 loader each platform's binaries name as their interpreter. */
    private static final Map<String, String> LOADER =
            Map.of("amd64", "usr/lib64/ld-linux-x86-64.so.2", "arm64", "usr/lib/ld-linux-aarch64.so.1");

    @ParameterizedTest
    @ValueSource(strings = {"arm64", "amd64"})
    void imageRunsTheQuarkusWorkerAsNonRootOnItsPlatform(String arch) throws Exception {
        Map<String, byte[]> tarball = entries(IMAGES.resolve("sluice-kcl-" + arch + ".tar"));
        assertThat(JSON.readTree(tarball.get("oci-layout"))
                        .get("imageLayoutVersion")
                        .asText())
                .isEqualTo("1.0.0");

        JsonNode index = JSON.readTree(tarball.get("index.json"));
        assertThat(index.get("manifests")).hasSize(1);
        JsonNode manifest = blob(tarball, index.get("manifests").get(0));
        assertThat(manifest.get("mediaType").asText()).isEqualTo("application/vnd.oci.image.manifest.v1+json");
        JsonNode config = blob(tarball, manifest.get("config"));

        // platform
        assertThat(config.get("architecture").asText()).isEqualTo(arch);
        assertThat(config.get("os").asText()).isEqualTo("linux");
        // user: nonroot, as in distroless
        JsonNode container = config.get("config");
        assertThat(container.get("User").asText()).isEqualTo("65532:65532");
        // entrypoint: the image's JVM running Quarkus's fast-jar
        assertThat(strings(container.get("Entrypoint")))
                .startsWith("/usr/bin/java")
                .endsWith("-jar", "/deployments/quarkus-run.jar");
        assertThat(container.get("WorkingDir").asText()).isEqualTo("/deployments");
        assertThat(strings(container.get("Env"))).contains("JAVA_HOME=/usr/lib/jvm/java-21-openjdk-" + arch);
        // labels: the revision it was built from
        JsonNode labels = container.get("Labels");
        assertThat(labels.get("org.opencontainers.image.revision").asText())
                .matches("[0-9a-f]{40}")
                .isEqualTo(System.getProperty("sluice.image.revision"));
        assertThat(labels.get("org.opencontainers.image.title").asText()).isEqualTo("sluice-kcl");

        // layers: every blob is what its digest says; the config's diff_ids are the uncompressed layers
        List<JsonNode> descriptors = new ArrayList<>();
        manifest.get("layers").forEach(descriptors::add);
        List<String> diffIds = strings(config.get("rootfs").get("diff_ids"));
        assertThat(descriptors).hasSize(4);
        assertThat(diffIds).hasSize(descriptors.size());
        List<Map<String, TarArchiveEntry>> layers = new ArrayList<>();
        List<Map<String, byte[]>> contents = new ArrayList<>();
        for (int i = 0; i < descriptors.size(); i++) {
            byte[] compressed = bytes(tarball, descriptors.get(i));
            assertThat(descriptors.get(i).get("mediaType").asText())
                    .isEqualTo("application/vnd.oci.image.layer.v1.tar+gzip");
            byte[] layer;
            try (InputStream in = new GZIPInputStream(new java.io.ByteArrayInputStream(compressed))) {
                layer = in.readAllBytes();
            }
            assertThat("sha256:" + sha256(layer)).as("diff_id of layer %d", i).isEqualTo(diffIds.get(i));
            Map<String, TarArchiveEntry> headers = new LinkedHashMap<>();
            Map<String, byte[]> files = new LinkedHashMap<>();
            read(layer, headers, files);
            layers.add(headers);
            contents.add(files);
        }
        assertThat(strings(config.get("history"), "comment"))
                .containsSubsequence("health probe", "quarkus application", "quarkus libraries");

        // the base: exactly the layer build-base.sh made from the pinned packages, first
        assertThat(diffIds.get(0)).isEqualTo(baseLayerDiffId(arch));
        Map<String, TarArchiveEntry> base = layers.get(0);
        String java = "usr/lib/jvm/java-21-openjdk-" + arch + "/bin/java";
        assertThat(base).containsKeys(java, LOADER.get(arch), "etc/ssl/certs/java/cacerts", "usr/share/zoneinfo/UTC");
        assertThat(base.get("lib").isSymbolicLink()).isTrue();
        assertThat(base.get("usr/bin/java").getLinkName()).isEqualTo("/" + java);
        byte[] elf = contents.get(0).get(java);
        assertThat(elf).startsWith(0x7f, 'E', 'L', 'F');
        assertThat((elf[18] & 0xff) | (elf[19] & 0xff) << 8)
                .as("ELF machine of %s", java)
                .isEqualTo(ELF_MACHINE.get(arch));
        assertThat(new String(contents.get(0).get("etc/passwd"), StandardCharsets.UTF_8))
                .contains("nonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin");
        assertThat(base.get("home/nonroot").getLongUserId()).isEqualTo(65532);
        assertThat(base.get("tmp").getMode() & 01777).isEqualTo(01777);
        // the packages' licences ship with them (OpenJDK: GPL-2.0 with the Classpath Exception, glibc: LGPL)
        assertThat(base)
                .containsKeys(
                        "usr/share/doc/openjdk-21-jre-headless/copyright",
                        "usr/share/doc/libc6/copyright",
                        "usr/share/doc/gcc-14-base/copyright",
                        "usr/share/doc/zlib1g/copyright");
        // distroless: no shell, no package manager
        assertThat(base)
                .doesNotContainKeys("usr/bin/sh", "usr/bin/bash", "usr/bin/dash", "usr/bin/apt", "usr/bin/dpkg");

        // the health probe, outside the application's class path
        assertThat(layers.get(1)).containsKey("opt/sluice/health/dev/sluice/kcl/health/HealthProbe.class");
        // the Quarkus application, readable by nonroot
        TarArchiveEntry runner = layers.get(2).get("deployments/quarkus-run.jar");
        assertThat(runner).isNotNull();
        assertThat(runner.getMode() & 0444).isEqualTo(0444);
        assertThat(layers.get(2).keySet()).anyMatch(name -> name.startsWith("deployments/app/sluice-kcl-"));
        assertThat(layers.get(2).keySet()).noneMatch(name -> name.startsWith("deployments/lib/"));
        // its libraries, KCL among them
        assertThat(layers.get(3).keySet())
                .anyMatch(
                        name -> name.startsWith("deployments/lib/main/software.amazon.kinesis.amazon-kinesis-client-"));
        // nothing of Jib's own class-path layout
        layers.forEach(layer -> assertThat(layer.keySet()).noneMatch(name -> name.startsWith("app/")));
    }

    /** The diff id of the base layer build-base.sh wrote (its docker-save tarball's configuration). */
    private static String baseLayerDiffId(String arch) throws IOException {
        Map<String, byte[]> base = entries(IMAGES.resolve("base-" + arch + ".tar"));
        JsonNode config = JSON.readTree(base.get("config.json"));
        assertThat(config.get("architecture").asText()).isEqualTo(arch);
        return config.get("rootfs").get("diff_ids").get(0).asText();
    }

    private static JsonNode blob(Map<String, byte[]> tarball, JsonNode descriptor)
            throws IOException, NoSuchAlgorithmException {
        return JSON.readTree(bytes(tarball, descriptor));
    }

    /** The blob a descriptor points to, checked against its digest and size. */
    private static byte[] bytes(Map<String, byte[]> tarball, JsonNode descriptor) throws NoSuchAlgorithmException {
        String digest = descriptor.get("digest").asText();
        byte[] blob = tarball.get("blobs/sha256/" + digest.substring("sha256:".length()));
        assertThat(blob).as("blob %s", digest).isNotNull();
        assertThat(blob.length).isEqualTo(descriptor.get("size").asLong());
        assertThat("sha256:" + sha256(blob)).isEqualTo(digest);
        return blob;
    }

    private static Map<String, byte[]> entries(Path tar) throws IOException {
        assertThat(tar)
                .as("built by `./mvnw -pl functions/kcl -am verify` (profile worker-image)")
                .isRegularFile();
        Map<String, byte[]> files = new LinkedHashMap<>();
        read(Files.readAllBytes(tar), new LinkedHashMap<>(), files);
        return files;
    }

    /** Every entry of a tar (names without a leading "./" or "/", nor a trailing "/"). */
    private static void read(byte[] tar, Map<String, TarArchiveEntry> headers, Map<String, byte[]> files)
            throws IOException {
        try (TarArchiveInputStream in = new TarArchiveInputStream(new java.io.ByteArrayInputStream(tar))) {
            for (TarArchiveEntry entry = in.getNextEntry(); entry != null; entry = in.getNextEntry()) {
                String name = entry.getName().replaceFirst("^\\./", "").replaceFirst("^/", "");
                name = name.endsWith("/") ? name.substring(0, name.length() - 1) : name;
                if (name.isEmpty() || name.equals(".")) {
                    continue;
                }
                headers.put(name, entry);
                if (entry.isFile()) {
                    files.put(name, in.readAllBytes());
                }
            }
        }
    }

    static String sha256(byte[] bytes) throws NoSuchAlgorithmException {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
    }

    static List<String> strings(JsonNode array) {
        List<String> out = new ArrayList<>();
        array.forEach(node -> out.add(node.asText()));
        return out;
    }

    private static List<String> strings(JsonNode array, String field) {
        List<String> out = new ArrayList<>();
        array.forEach(node -> out.add(node.path(field).asText()));
        return out;
    }
}
