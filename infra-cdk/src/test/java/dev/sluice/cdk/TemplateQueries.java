package dev.sluice.cdk;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import software.amazon.awscdk.assertions.Template;
import software.amazon.awscdk.services.iam.IRole;
import software.amazon.awscdk.services.lambda.Function;

/** Reads parts of a synthesized template that the {@code Match} DSL cannot express. */
final class TemplateQueries {

    private TemplateQueries() {}

    /** A function's {@code Environment.Variables} as synthesized (literals or intrinsics). */
    @SuppressWarnings("unchecked")
    static Map<String, Object> environment(Template template, String functionLogicalId) {
        Map<String, Object> function =
                template.findResources("AWS::Lambda::Function").get(functionLogicalId);
        Map<String, Object> properties = (Map<String, Object>) function.get("Properties");
        Map<String, Object> environment = (Map<String, Object>) properties.get("Environment");
        return (Map<String, Object>) environment.get("Variables");
    }

    /** The environment of a stage's function. */
    static Map<String, Object> environment(Template template, Function function) {
        return environment(template, TestApps.logicalId(function));
    }

    /** Logical ids of the template's Secrets Manager secrets. */
    static Set<String> secretLogicalIds(Template template) {
        return template.findResources("AWS::SecretsManager::Secret").keySet();
    }

    /**
     * The statements of every identity policy ({@code AWS::IAM::Policy}) of the template except the
     * persona roles' ({@link Personas}; {@code PersonasTest} covers those): the stage functions'.
     */
    static List<Map<String, Object>> statements(Template template) {
        List<Map<String, Object>> out = new ArrayList<>();
        template.findResources("AWS::IAM::Policy").forEach((logicalId, policy) -> {
            if (!logicalId.startsWith("Personas")) {
                out.addAll(statements(policy));
            }
        });
        return out;
    }

    /** The statements of the identity policies attached to this role. */
    @SuppressWarnings("unchecked")
    static List<Map<String, Object>> statementsOf(Template template, IRole role) {
        Object roleRef = TestApps.ref(role);
        List<Map<String, Object>> out = new ArrayList<>();
        template.findResources("AWS::IAM::Policy").values().forEach(policy -> {
            Map<String, Object> properties = (Map<String, Object>) policy.get("Properties");
            List<Object> roles = (List<Object>) properties.get("Roles");
            if (roles != null && roles.contains(roleRef)) {
                out.addAll(statements(policy));
            }
        });
        return out;
    }

    /** The statements (of these) that allow this exact action. */
    static List<Map<String, Object>> allowing(List<Map<String, Object>> statements, String action) {
        return statements.stream()
                .filter(statement -> "Allow".equals(statement.get("Effect")))
                .filter(statement -> actions(statement).contains(action))
                .toList();
    }

    /** A statement's actions, as a list even when it names one. */
    static List<Object> actions(Map<String, Object> statement) {
        return asList(statement.get("Action"));
    }

    /** A statement's resources, as a list even when it names one. */
    static List<Object> resources(Map<String, Object> statement) {
        return asList(statement.get("Resource"));
    }

    @SuppressWarnings("unchecked")
    private static List<Map<String, Object>> statements(Map<String, Object> policy) {
        Map<String, Object> properties = (Map<String, Object>) policy.get("Properties");
        Map<String, Object> document = (Map<String, Object>) properties.get("PolicyDocument");
        return (List<Map<String, Object>>) document.get("Statement");
    }

    private static List<Object> asList(Object value) {
        if (value instanceof List<?> list) {
            return new ArrayList<>(list);
        }
        List<Object> single = new ArrayList<>();
        if (value != null) {
            single.add(value);
        }
        return single;
    }

    /** Every map key anywhere in a JSON-like value (maps, lists, scalars). */
    static List<String> keys(Object value) {
        List<String> out = new ArrayList<>();
        collect(value, out, null);
        return out;
    }

    /** Every string anywhere in a JSON-like value, keys excepted. */
    static List<String> strings(Object value) {
        List<String> out = new ArrayList<>();
        collect(value, null, out);
        return out;
    }

    private static void collect(Object value, List<String> keys, List<String> strings) {
        if (value instanceof Map<?, ?> map) {
            map.forEach((key, nested) -> {
                if (keys != null) {
                    keys.add(String.valueOf(key));
                }
                collect(nested, keys, strings);
            });
        } else if (value instanceof List<?> list) {
            list.forEach(nested -> collect(nested, keys, strings));
        } else if (value instanceof String text && strings != null) {
            strings.add(text);
        }
    }
}
