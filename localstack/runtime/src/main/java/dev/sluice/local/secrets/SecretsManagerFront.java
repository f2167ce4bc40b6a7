package dev.sluice.local.secrets;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.sluice.core.pii.FileSecretProvider;
import dev.sluice.core.pii.SecretUnavailableException;
import dev.sluice.emulators.iam.AccessControl;
import dev.sluice.emulators.iam.AccessRequest;
import dev.sluice.emulators.iam.AwsService;
import dev.sluice.emulators.iam.Decision;
import dev.sluice.emulators.iam.GateRequest;
import dev.sluice.emulators.iam.KeyUse;
import dev.sluice.emulators.iam.ServiceCall;
import dev.sluice.emulators.iam.SignatureVerifier;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * The local secret store (one file per secret, {@link dev.sluice.emulators.LocalSecrets}) read the
 * way a stage reads Secrets Manager in AWS: {@code GetSecretValue} and {@code DescribeSecret} in
 * Secrets Manager's JSON protocol, so the stage runs its AWS secret provider locally too. There is no
 * Secrets Manager emulator without Docker; this front serves only the template's secrets, read-only,
 * from their files — it stores nothing and emulates nothing else.
 *
 * <p>Every call is authorized as AWS authorizes it, through the stack's {@link AccessControl} (the
 * same evaluator as the access gates): {@code secretsmanager:<operation>} on the secret's ARN with
 * its resource policy, and for {@code GetSecretValue} the {@code kms:Decrypt} Secrets Manager makes
 * on the caller's behalf with the secrets key ({@code kms:ViaService}, encryption context {@code
 * SecretARN}). Refusals answer as Secrets Manager does: {@code AccessDeniedException}, and for the
 * key "Access to KMS is not allowed".
 */
public final class SecretsManagerFront implements AutoCloseable {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String TYPE = "application/x-amz-json-1.1";
    private static final String PREFIX = "secretsmanager.";
    private static final String SECRET = ":secret:";
    /** A hyphen and six characters: what Secrets Manager appends to every secret's ARN. */
    private static final int SUFFIX_LENGTH = 7;

    private final AccessControl control;
    private final String region;
    private final Map<String, String> namesByArn;
    private final FileSecretProvider files;
    private final Instant created = Instant.now();
    private final HttpServer server;
    private final ExecutorService executor;

    /**
     * Serves the secrets of {@code namesByArn} (ARN → the name of its file in {@code folder}) on a
     * free loopback port, verifying each request's signature as signed for {@code region}.
     */
    public SecretsManagerFront(AccessControl control, String region, Map<String, String> namesByArn, Path folder) {
        this.control = control;
        this.region = region;
        this.namesByArn = Map.copyOf(namesByArn);
        this.files = new FileSecretProvider(folder);
        try {
            this.server = dev.sluice.emulators.http.LoopbackHttpServer.bind(64);
        } catch (IOException e) {
            throw new IllegalStateException("cannot bind the local Secrets Manager front: " + e.getMessage(), e);
        }
        this.executor = Executors.newFixedThreadPool(2, runnable -> {
            Thread thread = new Thread(runnable, "secrets-manager-front");
            thread.setDaemon(true);
            return thread;
        });
        server.setExecutor(executor);
        server.createContext("/", this::handle);
        server.start();
    }

    /** The endpoint to give clients ({@code AWS_ENDPOINT_URL_SECRETSMANAGER}). */
    public URI endpoint() {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
    }

    private void handle(HttpExchange exchange) throws IOException {
        try (exchange) {
            byte[] body;
            try (InputStream in = exchange.getRequestBody()) {
                body = in.readAllBytes();
            }
            Map<String, String> headers = new LinkedHashMap<>();
            // a header sent on several lines is one canonical header, its values joined, as signed
            exchange.getRequestHeaders().forEach((name, values) -> headers.put(name, String.join(",", values)));
            GateRequest request = new GateRequest(
                    exchange.getRequestMethod(),
                    exchange.getRequestURI().getRawPath(),
                    exchange.getRequestURI().getRawQuery(),
                    headers,
                    body);
            String target = request.header("x-amz-target");
            String signedOperation =
                    target != null && target.startsWith(PREFIX) ? target.substring(PREFIX.length()) : "";
            // the signature first, as AWS checks it before anything of the request
            Decision refused = control.verify(
                    request, region, new ServiceCall(AwsService.SECRETS_MANAGER, signedOperation, List.of()));
            if (refused instanceof Decision.BadSignature bad) {
                error(
                        exchange,
                        400,
                        bad.failure() == SignatureVerifier.Failure.INCOMPLETE
                                        || bad.failure() == SignatureVerifier.Failure.UNSUPPORTED
                                ? "IncompleteSignatureException"
                                : "InvalidSignatureException",
                        bad.message());
                return;
            }
            if (refused instanceof Decision.UnknownKey unknown) {
                error(
                        exchange,
                        400,
                        unknown.accessKeyId() == null
                                ? "MissingAuthenticationTokenException"
                                : "UnrecognizedClientException",
                        unknown.accessKeyId() == null
                                ? "Missing Authentication Token"
                                : "The security token included in the request is invalid.");
                return;
            }
            String operation = target != null && target.startsWith(PREFIX) ? target.substring(PREFIX.length()) : "";
            if (!operation.equals("GetSecretValue") && !operation.equals("DescribeSecret")) {
                error(
                        exchange,
                        400,
                        "UnknownOperationException",
                        "the local secret store serves GetSecretValue and" + " DescribeSecret only, not '" + operation
                                + "'");
                return;
            }
            JsonNode input;
            try {
                input = JSON.readTree(body);
            } catch (IOException e) {
                error(exchange, 400, "SerializationException", "the request body is not JSON");
                return;
            }
            String id = input == null ? "" : input.path("SecretId").asText("");
            String arn = arnOf(namesByArn.keySet(), id);
            if (arn == null) {
                error(exchange, 400, "ResourceNotFoundException", "Secrets Manager can't find the specified secret.");
                return;
            }
            boolean value = operation.equals("GetSecretValue");
            ServiceCall call = new ServiceCall(
                    AwsService.SECRETS_MANAGER,
                    operation,
                    List.of(new AccessRequest(
                            AwsService.SECRETS_MANAGER.action(operation),
                            arn,
                            Map.of(),
                            value ? KeyUse.DECRYPT : KeyUse.NONE)));
            Decision decision = control.authorize(request.accessKeyId(), call);
            if (decision instanceof Decision.Denied denied) {
                error(
                        exchange,
                        400,
                        "AccessDeniedException",
                        denied.kms() ? "Access to KMS is not allowed" : denied.message());
                return;
            }
            if (!(decision instanceof Decision.Allowed)) {
                error(
                        exchange,
                        400,
                        "UnrecognizedClientException",
                        "The security token included in the request is invalid.");
                return;
            }
            ObjectNode out = JSON.createObjectNode();
            out.put("ARN", arn);
            out.put("Name", nameOf(arn));
            if (value) {
                byte[] secret;
                try {
                    secret = files.secret(namesByArn.get(arn));
                } catch (SecretUnavailableException e) {
                    error(
                            exchange,
                            400,
                            "ResourceNotFoundException",
                            "Secrets Manager can't find the specified" + " secret value for staging label: AWSCURRENT");
                    return;
                }
                String text = utf8(secret);
                if (text != null) {
                    out.put("SecretString", text);
                } else {
                    out.put("SecretBinary", secret);
                }
                out.put("VersionId", versionId(arn));
                out.putArray("VersionStages").add("AWSCURRENT");
                out.put("CreatedDate", created.getEpochSecond());
            } else {
                out.put("CreatedDate", created.getEpochSecond());
                out.putObject("VersionIdsToStages").putArray(versionId(arn)).add("AWSCURRENT");
            }
            send(exchange, 200, JSON.writeValueAsBytes(out), Map.of());
        }
    }

    /**
     * The ARN of a {@code SecretId} as Secrets Manager resolves it: the full ARN, the partial ARN
     * (without the hyphen and six characters Secrets Manager appends) or the secret's name; null if
     * the store has no such secret.
     */
    static String arnOf(java.util.Collection<String> arns, String id) {
        if (arns.contains(id)) {
            return id;
        }
        String match = null;
        for (String arn : arns) {
            String partial = arn.substring(0, arn.length() - SUFFIX_LENGTH);
            if (id.equals(partial) || id.equals(partial.substring(partial.indexOf(SECRET) + SECRET.length()))) {
                if (match != null) {
                    throw new IllegalStateException("secret id " + id + " names two secrets: " + match + ", " + arn);
                }
                match = arn;
            }
        }
        return match;
    }

    /** The name of a secret's ARN: what follows {@code :secret:}, less the six-character suffix. */
    static String nameOf(String arn) {
        return arn.substring(arn.indexOf(SECRET) + SECRET.length(), arn.length() - SUFFIX_LENGTH);
    }

    /** The local store's file of a secret: its ARN's resource part, name and suffix (unique per secret). */
    public static String fileName(String arn) {
        int at = arn.indexOf(SECRET);
        if (at < 0 || arn.length() - at - SECRET.length() <= SUFFIX_LENGTH) {
            throw new IllegalArgumentException("not a Secrets Manager secret ARN: " + arn);
        }
        return arn.substring(at + SECRET.length());
    }

    private static String versionId(String arn) {
        return UUID.nameUUIDFromBytes(arn.getBytes(StandardCharsets.UTF_8)).toString();
    }

    private static String utf8(byte[] bytes) {
        try {
            return StandardCharsets.UTF_8
                    .newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(bytes))
                    .toString();
        } catch (CharacterCodingException e) {
            return null;
        }
    }

    private static void error(HttpExchange exchange, int status, String type, String message) throws IOException {
        ObjectNode error = JSON.createObjectNode();
        error.put("__type", type);
        error.put("Message", message);
        send(exchange, status, JSON.writeValueAsBytes(error), Map.of("x-amzn-ErrorType", type));
    }

    private static void send(HttpExchange exchange, int status, byte[] body, Map<String, String> headers)
            throws IOException {
        exchange.getResponseHeaders().set("Content-Type", TYPE);
        exchange.getResponseHeaders().set("x-amzn-RequestId", UUID.randomUUID().toString());
        headers.forEach((name, value) -> exchange.getResponseHeaders().set(name, value));
        exchange.sendResponseHeaders(status, body.length);
        try (OutputStream os = exchange.getResponseBody()) {
            os.write(body);
        }
    }

    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
    }
}
