package dev.sluice.emulators.iam;

import java.io.ByteArrayInputStream;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.signer.internal.BaseAws4Signer;
import software.amazon.awssdk.auth.signer.params.Aws4SignerParams;
import software.amazon.awssdk.core.checksums.SdkChecksum;
import software.amazon.awssdk.http.SdkHttpFullRequest;
import software.amazon.awssdk.http.SdkHttpMethod;
import software.amazon.awssdk.regions.Region;

/**
 * Verifies the SigV4 signature of a request as AWS does: the caller's secret key is looked up from
 * the access key id of its {@code Authorization} header, the AWS SDK's own V4 signer recomputes the
 * signature over the request as it was received — method, path, query, the headers the caller lists
 * in {@code SignedHeaders} with the values it sent ({@code Host} as the client sent it, never a
 * rewritten one), the date of {@code X-Amz-Date} and the credential scope — and the two signatures
 * are compared in constant time.
 *
 * <p>The payload hash of the canonical request is the SHA-256 of the body the gate received, or,
 * when the caller sends {@code x-amz-content-sha256} (S3), that header's value: a hex hash must be the
 * body's (else S3's {@code XAmzContentSHA256Mismatch}); {@code UNSIGNED-PAYLOAD} leaves the body
 * unsigned, as in AWS; for {@code STREAMING-*} (aws-chunked) payloads the seed signature over the
 * headers is verified, the per-chunk signatures are not. A date more than 15 minutes from the
 * gate's clock is refused ("Signature expired"), as AWS refuses it. Presigned URLs (query-string
 * authentication) and signature version 2 are refused, not verified.
 */
public final class SignatureVerifier {

    /** How far a request's date may be from the gate's clock (AWS: 15 minutes). */
    public static final Duration MAX_SKEW = Duration.ofMinutes(15);

    static final String ALGORITHM = "AWS4-HMAC-SHA256";
    private static final DateTimeFormatter AMZ_DATE =
            DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'").withZone(ZoneOffset.UTC);
    private static final String CONTENT_SHA256 = "x-amz-content-sha256";

    /** Why a signature was refused. */
    public enum Failure {
        /** No signature at all. */
        MISSING,
        /** The access key id is not known. */
        UNKNOWN_KEY,
        /** The signature does not match the one computed with the key's secret. */
        MISMATCH,
        /** The request's date is more than {@link #MAX_SKEW} from the clock. */
        EXPIRED,
        /** The {@code Authorization} header or the date is malformed or incomplete. */
        INCOMPLETE,
        /** {@code x-amz-content-sha256} is not the SHA-256 of the body (S3). */
        CONTENT_SHA256_MISMATCH,
        /** An authentication the local stack does not verify (presigned URL, signature V2). */
        UNSUPPORTED
    }

    /**
     * The outcome: {@code failure} null when the signature is valid.
     *
     * @param accessKeyId the access key id the request names, or null
     * @param failure why it was refused, or null
     * @param message AWS's message for the refusal
     */
    public record Result(String accessKeyId, Failure failure, String message) {
        public boolean valid() {
            return failure == null;
        }
    }

    private final Clock clock;

    public SignatureVerifier(Clock clock) {
        this.clock = clock;
    }

    /**
     * @param service the service whose signing name the scope must carry
     * @param region the region the scope must carry
     * @param secretOf the secret key of an access key id, or null for an unknown key
     */
    public Result verify(GateRequest request, AwsService service, String region, Function<String, String> secretOf) {
        String authorization = request.header("authorization");
        if (authorization == null) {
            Map<String, String> query = request.query();
            if (query.containsKey("X-Amz-Signature") || query.containsKey("X-Amz-Credential")) {
                return new Result(
                        request.accessKeyId(),
                        Failure.UNSUPPORTED,
                        "presigned URLs (query-string authentication) are not verified by the local stack");
            }
            return new Result(null, Failure.MISSING, "Missing Authentication Token");
        }
        if (!authorization.startsWith(ALGORITHM + " ")) {
            return new Result(
                    request.accessKeyId(),
                    Failure.UNSUPPORTED,
                    "The authorization mechanism you have provided is not supported. Please use " + ALGORITHM + ".");
        }
        Map<String, String> parts = new LinkedHashMap<>();
        for (String part : authorization.substring(ALGORITHM.length() + 1).split(",")) {
            int eq = part.indexOf('=');
            if (eq > 0) {
                parts.put(part.substring(0, eq).trim(), part.substring(eq + 1).trim());
            }
        }
        String credential = parts.get("Credential");
        String signedHeaders = parts.get("SignedHeaders");
        String signature = parts.get("Signature");
        String[] scope = credential == null ? new String[0] : credential.split("/", -1);
        if (scope.length != 5 || signedHeaders == null || signature == null) {
            return new Result(
                    scope.length > 0 ? scope[0] : null,
                    Failure.INCOMPLETE,
                    "Authorization header requires 'Credential', 'Signature' and 'SignedHeaders' parameters."
                            + " Authorization=" + authorization);
        }
        String keyId = scope[0];
        String secret = secretOf.apply(keyId);
        if (secret == null) {
            return new Result(keyId, Failure.UNKNOWN_KEY, "The security token included in the request is invalid.");
        }
        String amzDate = request.header("x-amz-date");
        if (amzDate == null) {
            return new Result(
                    keyId,
                    Failure.INCOMPLETE,
                    "Authorization header requires existence of either a 'X-Amz-Date' or a 'Date' header."
                            + " Authorization=" + authorization);
        }
        Instant signedAt;
        try {
            signedAt = Instant.from(AMZ_DATE.parse(amzDate));
        } catch (DateTimeParseException e) {
            return new Result(
                    keyId,
                    Failure.INCOMPLETE,
                    "Date must be in ISO-8601 'basic format'. Got '" + amzDate
                            + "'. See http://en.wikipedia.org/wiki/ISO_8601");
        }
        Instant now = clock.instant();
        if (signedAt.isBefore(now.minus(MAX_SKEW))) {
            return new Result(
                    keyId,
                    Failure.EXPIRED,
                    "Signature expired: " + amzDate + " is now earlier than " + AMZ_DATE.format(now.minus(MAX_SKEW))
                            + " (" + AMZ_DATE.format(now) + " - 15 min.)");
        }
        if (signedAt.isAfter(now.plus(MAX_SKEW))) {
            return new Result(
                    keyId,
                    Failure.EXPIRED,
                    "Signature not yet current: " + amzDate + " is still later than "
                            + AMZ_DATE.format(now.plus(MAX_SKEW)) + " (" + AMZ_DATE.format(now) + " + 15 min.)");
        }
        String signingName = service.prefix();
        if (!scope[1].equals(amzDate.substring(0, 8))
                || !scope[2].equals(region)
                || !scope[3].equals(signingName)
                || !scope[4].equals("aws4_request")) {
            return new Result(
                    keyId,
                    Failure.MISMATCH,
                    "Credential should be scoped to a valid region, service and date: expected "
                            + amzDate.substring(0, 8)
                            + "/" + region + "/" + signingName + "/aws4_request, got "
                            + credential.substring(keyId.length() + 1));
        }
        String bodyHash = sha256Hex(request.body());
        String claimed = request.header(CONTENT_SHA256);
        if (claimed != null && claimed.matches("[0-9a-fA-F]{64}") && !claimed.equalsIgnoreCase(bodyHash)) {
            return service == AwsService.S3
                    ? new Result(
                            keyId,
                            Failure.CONTENT_SHA256_MISMATCH,
                            "The provided 'x-amz-content-sha256' header does not match what was computed.")
                    : new Result(keyId, Failure.MISMATCH, mismatchMessage(service));
        }
        String expected;
        try {
            expected = recompute(
                    request,
                    signedHeaders,
                    claimed == null ? bodyHash : claimed,
                    keyId,
                    secret,
                    signedAt,
                    region,
                    signingName,
                    service == AwsService.S3);
        } catch (IllegalArgumentException e) {
            return new Result(keyId, Failure.INCOMPLETE, e.getMessage());
        }
        boolean same = expected != null
                && MessageDigest.isEqual(
                        expected.getBytes(StandardCharsets.US_ASCII), signature.getBytes(StandardCharsets.US_ASCII));
        if (!same) {
            return new Result(keyId, Failure.MISMATCH, mismatchMessage(service));
        }
        return new Result(keyId, null, null);
    }

    /** AWS's message for a signature that does not match. */
    static String mismatchMessage(AwsService service) {
        return service == AwsService.S3
                ? "The request signature we calculated does not match the signature you provided. Check your key and"
                        + " signing method."
                : "The request signature we calculated does not match the signature you provided. Check your AWS"
                        + " Secret Access Key and signing method. Consult the service documentation for details.";
    }

    /**
     * The SDK's V4 signature of the request as received, with only the headers it lists as signed;
     * null when one of them is missing (the signature cannot match).
     */
    @SuppressWarnings("deprecation")
    private static String recompute(
            GateRequest request,
            String signedHeaders,
            String payloadHash,
            String keyId,
            String secret,
            Instant signedAt,
            String region,
            String signingName,
            boolean s3) {
        String host = request.header("host");
        if (host == null) {
            return null;
        }
        SdkHttpFullRequest.Builder builder = SdkHttpFullRequest.builder()
                .method(SdkHttpMethod.fromValue(request.method().toUpperCase(Locale.ROOT)))
                .protocol("http")
                .encodedPath(request.rawPath() == null ? "" : request.rawPath());
        hostAndPort(builder, host);
        rawQuery(request.rawQuery()).forEach(builder::putRawQueryParameter);
        for (String name : signedHeaders.split(";")) {
            String lower = name.trim().toLowerCase(Locale.ROOT);
            if (lower.isEmpty() || lower.equals("host") || lower.equals("x-amz-date")) {
                continue; // the signer sets both: the host from the request's host and port, the date from the clock
            }
            String value = request.header(lower);
            if (value == null) {
                return null;
            }
            builder.putHeader(lower, value);
        }
        byte[] body = request.body();
        builder.contentStreamProvider(() -> new ByteArrayInputStream(body));
        Aws4SignerParams params = Aws4SignerParams.builder()
                .awsCredentials(AwsBasicCredentials.create(keyId, secret))
                .signingName(signingName)
                .signingRegion(Region.of(region))
                .signingClockOverride(Clock.fixed(signedAt, ZoneOffset.UTC))
                .doubleUrlEncode(!s3)
                .normalizePath(!s3)
                .build();
        SdkHttpFullRequest signed = new DeclaredPayloadSigner(payloadHash).sign(builder.build(), params);
        String authorization = signed.firstMatchingHeader("Authorization").orElse("");
        int at = authorization.indexOf("Signature=");
        String ours = at < 0
                ? null
                : authorization.substring(at + "Signature=".length()).trim();
        int signedAtHeaders = authorization.indexOf("SignedHeaders=");
        String oursSigned = signedAtHeaders < 0
                ? ""
                : authorization.substring(
                        signedAtHeaders + "SignedHeaders=".length(), authorization.indexOf(',', signedAtHeaders));
        // the signer signs the headers it was given; a header it would leave out (user-agent, expect,
        // connection...) that the caller signed gives another list, and no match
        return oursSigned.equalsIgnoreCase(signedHeaders.replace(" ", "")) ? ours : null;
    }

    private static void hostAndPort(SdkHttpFullRequest.Builder builder, String host) {
        int colon = host.lastIndexOf(':');
        boolean ipv6 = host.startsWith("[");
        if (colon > 0 && (!ipv6 || host.lastIndexOf(']') < colon)) {
            try {
                builder.host(host.substring(0, colon)).port(Integer.parseInt(host.substring(colon + 1)));
                return;
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("malformed Host header: " + host, e);
            }
        }
        builder.host(host).port(80);
    }

    /** The query parameters, decoded (multi-valued, in order); the signer encodes and sorts them again. */
    static Map<String, List<String>> rawQuery(String rawQuery) {
        Map<String, List<String>> out = new LinkedHashMap<>();
        if (rawQuery == null || rawQuery.isEmpty()) {
            return out;
        }
        for (String pair : rawQuery.split("&")) {
            if (pair.isEmpty()) {
                continue;
            }
            int eq = pair.indexOf('=');
            String name = eq < 0 ? pair : pair.substring(0, eq);
            String value = eq < 0 ? "" : pair.substring(eq + 1);
            out.computeIfAbsent(decode(name), ignored -> new ArrayList<>()).add(decode(value));
        }
        return out;
    }

    private static String decode(String text) {
        return URLDecoder.decode(text.replace("+", "%2B"), StandardCharsets.UTF_8);
    }

    static String sha256Hex(byte[] body) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(body));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * The SDK's V4 signer with the payload hash the request declares (the body's SHA-256, checked
     * before, {@code UNSIGNED-PAYLOAD} or a {@code STREAMING-*} constant) instead of one it computes:
     * everything else — canonical request, string to sign, signing key, signature — is the SDK's.
     */
    @SuppressWarnings("deprecation")
    private static final class DeclaredPayloadSigner extends BaseAws4Signer {
        private final String payloadHash;

        DeclaredPayloadSigner(String payloadHash) {
            this.payloadHash = payloadHash;
        }

        @Override
        protected String calculateContentHash(
                SdkHttpFullRequest.Builder mutableRequest, Aws4SignerParams signerParams) {
            return payloadHash;
        }

        @Override
        protected String calculateContentHash(
                SdkHttpFullRequest.Builder mutableRequest, Aws4SignerParams signerParams, SdkChecksum checksum) {
            return payloadHash;
        }
    }
}
