package dev.sluice.cdk;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.core.definition.Persona;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import software.amazon.awscdk.services.iam.AccountRootPrincipal;
import software.amazon.awscdk.services.iam.ArnPrincipal;
import software.amazon.awscdk.services.iam.CompositePrincipal;
import software.amazon.awscdk.services.iam.IPrincipal;
import software.amazon.awscdk.services.iam.PrincipalBase;
import software.constructs.Construct;

/**
 * Who may assume each persona's role, from CDK context rather than the bare account:
 *
 * <ul>
 *   <li>{@value #CONTEXT}: persona name → list of principal ARNs (typically the IAM Identity Center
 *       permission-set roles, {@code arn:aws:iam::<account>:role/aws-reserved/sso.amazonaws.com/...}),
 *       as a JSON object in {@code cdk.json} or as a JSON string with {@code -c}. A persona without
 *       an entry (or no value at all) trusts the account root, and synthesis warns;
 *   <li>{@value #ADMIN_SESSION_TAG_CONTEXT}: {@code key=value}; when set, {@code admin} is assumable only
 *       by a principal carrying that tag ({@code aws:PrincipalTag/key}), else only with MFA ({@code
 *       aws:MultiFactorAuthPresent}).
 * </ul>
 */
public final class PersonaTrust {

    /** Context key of the persona → trusted principal ARNs mapping. */
    public static final String CONTEXT = "sluice:personaTrust";

    /** Context key of the session tag ({@code key=value}) admin requires instead of MFA. */
    public static final String ADMIN_SESSION_TAG_CONTEXT = "sluice:adminSessionTag";

    private static final Pattern PRINCIPAL_ARN = Pattern.compile("^arn:aws[a-z-]*:(iam|sts)::\\d{12}:[^\\s*?]+$");
    private static final Pattern TAG =
            Pattern.compile("^([\\p{L}\\p{N} _.:/+\\-@]{1,128})=([\\p{L}\\p{N} _.:/+\\-@]{0,256})$");

    private final Map<Persona, List<String>> trusted;
    private final String tagKey;
    private final String tagValue;

    PersonaTrust(Map<Persona, List<String>> trusted, String adminSessionTag) {
        this.trusted = trusted;
        if (adminSessionTag == null || adminSessionTag.isBlank()) {
            this.tagKey = null;
            this.tagValue = null;
        } else {
            var matcher = TAG.matcher(adminSessionTag.trim());
            if (!matcher.matches()) {
                throw new IllegalArgumentException(
                        ADMIN_SESSION_TAG_CONTEXT + " must be key=value, not '" + adminSessionTag + "'");
            }
            this.tagKey = matcher.group(1);
            this.tagValue = matcher.group(2);
        }
    }

    /** Reads both context values seen from {@code scope}. */
    static PersonaTrust fromContext(Construct scope) {
        Object tag = scope.getNode().tryGetContext(ADMIN_SESSION_TAG_CONTEXT);
        return new PersonaTrust(parse(scope.getNode().tryGetContext(CONTEXT)), tag == null ? null : tag.toString());
    }

    /** The mapping from a context value: a map (cdk.json) or a JSON string ({@code -c}); null → empty. */
    static Map<Persona, List<String>> parse(Object value) {
        Map<Persona, List<String>> out = new EnumMap<>(Persona.class);
        if (value == null) {
            return out;
        }
        ObjectMapper mapper = new ObjectMapper();
        JsonNode node;
        try {
            node = value instanceof String text ? mapper.readTree(text) : mapper.valueToTree(value);
        } catch (JsonProcessingException | IllegalArgumentException e) {
            throw new IllegalArgumentException(CONTEXT + " is not a JSON object of persona -> principal ARNs");
        }
        if (node == null || !node.isObject()) {
            throw new IllegalArgumentException(CONTEXT + " must be a JSON object of persona -> principal ARNs");
        }
        node.fields().forEachRemaining(entry -> {
            Persona persona;
            try {
                persona = Persona.fromYaml(entry.getKey());
            } catch (RuntimeException e) {
                throw new IllegalArgumentException(CONTEXT + ": unknown persona '" + entry.getKey() + "'");
            }
            List<String> arns = new ArrayList<>();
            JsonNode list = entry.getValue().isArray()
                    ? entry.getValue()
                    : mapper.createArrayNode().add(entry.getValue());
            list.forEach(arn -> {
                if (!arn.isTextual() || !PRINCIPAL_ARN.matcher(arn.asText()).matches()) {
                    throw new IllegalArgumentException(CONTEXT + ": persona '" + entry.getKey() + "' names '"
                            + arn.asText() + "', not an IAM principal ARN without wildcards");
                }
                arns.add(arn.asText());
            });
            if (arns.isEmpty()) {
                throw new IllegalArgumentException(CONTEXT + ": persona '" + entry.getKey() + "' names no principal");
            }
            out.put(persona, List.copyOf(arns));
        });
        return out;
    }

    /** The principals configured for a persona; empty when it falls back to the account root. */
    public List<String> trusted(Persona persona) {
        return trusted.getOrDefault(persona, List.of());
    }

    /** Whether some persona has no configured principal and trusts the account root. */
    public boolean fallsBackToAccountRoot() {
        return trusted.size() < Persona.values().length;
    }

    /** The session tag admin requires ({@code key}, {@code value}), or empty when admin requires MFA. */
    public Map<String, String> adminSessionTag() {
        return tagKey == null ? Map.of() : Map.of(tagKey, tagValue);
    }

    /** The principal the persona's role trusts, with admin's MFA or session-tag condition. */
    IPrincipal principal(Persona persona) {
        List<String> arns = trusted(persona);
        PrincipalBase base =
                arns.isEmpty() ? new AccountRootPrincipal() : arns.size() == 1 ? new ArnPrincipal(arns.get(0)) : null;
        if (base == null) {
            // several principals: one statement naming them all, same conditions
            IPrincipal[] each = arns.stream().map(ArnPrincipal::new).toArray(IPrincipal[]::new);
            CompositePrincipal composite = new CompositePrincipal(each);
            return persona == Persona.ADMIN ? composite.withConditions(adminConditions()) : composite;
        }
        return persona == Persona.ADMIN ? base.withConditions(adminConditions()) : base;
    }

    private Map<String, Object> adminConditions() {
        if (tagKey != null) {
            return Map.of("StringEquals", Map.of("aws:PrincipalTag/" + tagKey, tagValue));
        }
        return Map.of("Bool", Map.of("aws:MultiFactorAuthPresent", "true"));
    }

    /** The configured mapping, by persona. */
    public Map<Persona, List<String>> all() {
        return Collections.unmodifiableMap(trusted);
    }
}
