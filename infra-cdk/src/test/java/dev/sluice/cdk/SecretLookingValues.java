package dev.sluice.cdk;

import dev.sluice.core.definition.EnvironmentNames;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Finds environment variables that look like they carry a secret: a secret-sounding name, a
 * literal value shaped like a key or token, or a dynamic reference to Secrets Manager or a secure
 * SSM parameter (which CloudFormation would resolve into the plain-text environment).
 *
 * <p>One secret-sounding name is expected: a {@code SLUICE_SECRET_ID_<NAME>} variable whose value is
 * exactly a {@code Ref} to a Secrets Manager secret of the template names the secret (its ARN),
 * not its value. Any other value of such a variable is a finding.
 */
final class SecretLookingValues {

    private static final Pattern SECRET_NAME = Pattern.compile(
            "(?i).*(SECRET|PASSWORD|PASSWD|PASSPHRASE|TOKEN|CREDENTIAL|API_?KEY|PRIVATE_?KEY|ACCESS_?KEY|HMAC|SIGNING).*");
    private static final Pattern AWS_ACCESS_KEY_ID = Pattern.compile("(AKIA|ASIA)[0-9A-Z]{16}");
    /** A long unbroken run of key-like characters mixing letters and digits. */
    private static final Pattern KEY_SHAPED =
            Pattern.compile("(?=[A-Za-z0-9+/=_-]*[0-9])(?=[A-Za-z0-9+/=_-]*[A-Za-z])[A-Za-z0-9+/=_-]{20,}");

    private static final List<String> DYNAMIC_SECRET_REFERENCES =
            List.of("{{resolve:secretsmanager:", "{{resolve:ssm-secure:", "-----BEGIN");

    private SecretLookingValues() {}

    /**
     * The offending variables, each as {@code NAME: reason}; empty when none looks secret.
     *
     * @param environment a function's {@code Environment.Variables} as synthesized: literal strings
     *     or CloudFormation intrinsics
     */
    static List<String> in(Map<String, Object> environment) {
        return in(environment, Set.of());
    }

    /**
     * As {@link #in(Map)}, except that a {@code SLUICE_SECRET_ID_<NAME>} variable whose value is
     * {@code {"Ref": id}} with {@code id} one of {@code secretLogicalIds} is not a finding.
     *
     * @param secretLogicalIds logical ids of the template's {@code AWS::SecretsManager::Secret}
     *     resources
     */
    static List<String> in(Map<String, Object> environment, Set<String> secretLogicalIds) {
        List<String> findings = new ArrayList<>();
        environment.forEach((name, value) -> {
            if (name.startsWith(EnvironmentNames.SECRET_ID_PREFIX)
                    && value instanceof Map<?, ?> ref
                    && ref.size() == 1
                    && ref.get("Ref") instanceof String id
                    && secretLogicalIds.contains(id)) {
                return; // the secret's ARN
            }
            if (SECRET_NAME.matcher(name).matches()) {
                findings.add(name + ": secret-sounding name");
            }
            for (String literal : literals(value)) {
                if (AWS_ACCESS_KEY_ID.matcher(literal).find()) {
                    findings.add(name + ": AWS access key id");
                }
                if (KEY_SHAPED.matcher(literal).find()) {
                    findings.add(name + ": key-shaped literal '" + literal + "'");
                }
                for (String reference : DYNAMIC_SECRET_REFERENCES) {
                    if (literal.contains(reference)) {
                        findings.add(name + ": contains " + reference);
                    }
                }
            }
        });
        return findings;
    }

    /**
     * The literal strings inside a value. Intrinsics are walked, except the logical ids and
     * attribute names of {@code Ref} and {@code Fn::GetAtt}, which name resources, not values.
     */
    private static List<String> literals(Object value) {
        List<String> out = new ArrayList<>();
        collect(value, out);
        return out;
    }

    private static void collect(Object value, List<String> out) {
        if (value instanceof String text) {
            out.add(text);
        } else if (value instanceof Map<?, ?> map) {
            map.forEach((key, nested) -> {
                if (!"Ref".equals(key) && !"Fn::GetAtt".equals(key)) {
                    collect(nested, out);
                }
            });
        } else if (value instanceof List<?> list) {
            list.forEach(nested -> collect(nested, out));
        }
    }
}
