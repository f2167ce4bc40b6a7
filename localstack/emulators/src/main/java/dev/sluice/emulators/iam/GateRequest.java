package dev.sluice.emulators.iam;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * An HTTP request as the gate received it.
 *
 * @param method the HTTP method
 * @param rawPath the path, still percent-encoded
 * @param rawQuery the query string, still percent-encoded, or null
 * @param headers the headers by lower-case name (first value)
 * @param body the body
 */
public record GateRequest(String method, String rawPath, String rawQuery, Map<String, String> headers, byte[] body) {

    public GateRequest {
        Map<String, String> lower = new LinkedHashMap<>();
        headers.forEach((name, value) -> lower.putIfAbsent(name.toLowerCase(Locale.ROOT), value));
        headers = lower;
    }

    /** A header by name (any case), or null. */
    public String header(String name) {
        return headers.get(name.toLowerCase(Locale.ROOT));
    }

    /** The query parameters, decoded (a parameter without a value maps to the empty string). */
    public Map<String, String> query() {
        return form(rawQuery);
    }

    /** {@code a=b&c} decoded. */
    public static Map<String, String> form(String encoded) {
        Map<String, String> out = new LinkedHashMap<>();
        if (encoded == null || encoded.isEmpty()) {
            return out;
        }
        for (String pair : encoded.split("&")) {
            if (pair.isEmpty()) {
                continue;
            }
            int eq = pair.indexOf('=');
            String name = eq < 0 ? pair : pair.substring(0, eq);
            String value = eq < 0 ? "" : pair.substring(eq + 1);
            out.putIfAbsent(decode(name), decode(value));
        }
        return out;
    }

    static String decode(String text) {
        return URLDecoder.decode(text.replace("+", "%2B"), StandardCharsets.UTF_8);
    }

    static String decodeForm(String text) {
        return URLDecoder.decode(text, StandardCharsets.UTF_8);
    }

    /**
     * The access key id of the SigV4 signature ({@code Authorization: AWS4-HMAC-SHA256
     * Credential=<id>/...}, or a presigned URL's {@code X-Amz-Credential}), or null when unsigned.
     */
    public String accessKeyId() {
        String authorization = header("authorization");
        if (authorization != null) {
            int at = authorization.indexOf("Credential=");
            if (at >= 0) {
                int slash = authorization.indexOf('/', at);
                return slash < 0 ? null : authorization.substring(at + "Credential=".length(), slash);
            }
            if (authorization.startsWith("AWS ")) { // signature V2: AWS id:signature
                int colon = authorization.indexOf(':');
                return colon < 0 ? null : authorization.substring(4, colon);
            }
            return null;
        }
        String credential = query().get("X-Amz-Credential");
        if (credential != null) {
            int slash = credential.indexOf('/');
            return slash < 0 ? credential : credential.substring(0, slash);
        }
        return null;
    }

    /** The path segments, decoded. */
    public List<String> pathSegments() {
        String path = rawPath == null ? "/" : rawPath;
        if (path.startsWith("/")) {
            path = path.substring(1);
        }
        if (path.isEmpty()) {
            return List.of();
        }
        int slash = path.indexOf('/');
        if (slash < 0) {
            return List.of(decode(path));
        }
        // bucket, then the whole key (which may contain slashes)
        return List.of(decode(path.substring(0, slash)), decode(path.substring(slash + 1)));
    }
}
