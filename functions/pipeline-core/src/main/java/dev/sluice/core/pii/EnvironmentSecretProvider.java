package dev.sluice.core.pii;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Secrets from environment variables, for local runs and tests only: in AWS secrets live in
 * Secrets Manager and never in a function's environment (product spec §4).
 *
 * <p>Secret {@code name} is read from the variable {@code SLUICE_SECRET_<NAME>}, where {@code
 * <NAME>} is the name in upper case with every character other than {@code A-Z} and {@code 0-9}
 * replaced by {@code _}: secret {@code pii-hmac-key} is {@code SLUICE_SECRET_PII_HMAC_KEY} and
 * {@code sluice/payments/hmac} is {@code SLUICE_SECRET_SLUICE_PAYMENTS_HMAC} (see {@link
 * #variableName(String)}).
 *
 * <p>Values are plain text, used as their UTF-8 bytes, unless they start with {@value
 * #BASE64_PREFIX}: then the rest is standard base64 (RFC 4648; padding optional, line breaks ignored) and the decoded
 * bytes are the secret. The explicit prefix keeps the choice unambiguous: a text passphrase that
 * happens to be valid base64 is never decoded by accident. Generate a key with {@code
 * SLUICE_SECRET_PII_HMAC_KEY=base64:$(openssl rand -base64 32)}.
 */
public final class EnvironmentSecretProvider implements SecretProvider {

    /** The prefix of every secret variable. */
    public static final String VARIABLE_PREFIX = "SLUICE_SECRET_";

    /** A value starting with this prefix is base64; any other value is UTF-8 text. */
    public static final String BASE64_PREFIX = "base64:";

    private static final Pattern WHITESPACE = Pattern.compile("\\s+");

    private final Map<String, String> environment;

    /** Secrets from these variables, typically {@code System.getenv()}; the map is copied. */
    public EnvironmentSecretProvider(Map<String, String> environment) {
        if (environment == null) {
            throw new IllegalArgumentException("the environment must not be null");
        }
        this.environment = Map.copyOf(environment);
    }

    /** The variable that holds a secret: {@code pii-hmac-key} → {@code SLUICE_SECRET_PII_HMAC_KEY}. */
    public static String variableName(String secretName) {
        SecretNames.require(secretName);
        StringBuilder variable = new StringBuilder(VARIABLE_PREFIX.length() + secretName.length());
        variable.append(VARIABLE_PREFIX);
        String upper = secretName.toUpperCase(Locale.ROOT);
        for (int i = 0; i < upper.length(); i++) {
            char c = upper.charAt(i);
            variable.append((c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ? c : '_');
        }
        return variable.toString();
    }

    @Override
    public byte[] secret(String name) {
        String variable = variableName(name);
        String value = environment.get(variable);
        if (value == null) {
            throw new SecretUnavailableException(name, "the variable " + variable + " is not set");
        }
        byte[] secret;
        if (value.startsWith(BASE64_PREFIX)) {
            try {
                secret = Base64.getDecoder()
                        .decode(WHITESPACE
                                .matcher(value.substring(BASE64_PREFIX.length()))
                                .replaceAll(""));
            } catch (IllegalArgumentException e) {
                // the decoder's message quotes the offending character: do not pass it on
                throw new SecretUnavailableException(name, "the variable " + variable + " is not valid base64");
            }
        } else {
            secret = value.getBytes(StandardCharsets.UTF_8);
        }
        if (secret.length == 0) {
            throw new SecretUnavailableException(name, "the variable " + variable + " is empty");
        }
        return secret;
    }

    @Override
    public String toString() {
        return "EnvironmentSecretProvider[" + VARIABLE_PREFIX + "*]";
    }
}
