package dev.sluice.local.iam;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.local.template.CloudFormationTemplate;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Template mutations for tests and fault scenarios: a copy of a template without one grant, as if
 * the CDK stack had not granted it.
 */
public final class Grants {

    private Grants() {}

    /**
     * The template and how many statements lost the action.
     *
     * @param template the mutated copy
     * @param statements how many identity policy statements granted it (0: nothing was revoked)
     */
    public record Revoked(CloudFormationTemplate template, int statements) {}

    /**
     * A copy of the template in which no {@code AWS::IAM::Policy} statement allows {@code action}
     * (exactly that action name) on a resource whose declaration names {@code resourceLogicalId}
     * and, when {@code resourceText} is not null, contains that text (e.g. {@code /payments/*} for a
     * lake prefix). A statement left without actions is dropped.
     */
    public static Revoked revoke(
            CloudFormationTemplate template, String action, String resourceLogicalId, String resourceText) {
        return revoke(template, null, action, resourceLogicalId, resourceText);
    }

    /**
     * Like {@link #revoke(CloudFormationTemplate, String, String, String)}, only in the policies
     * attached to one role ({@code roleLogicalId}; null: every role).
     */
    public static Revoked revoke(
            CloudFormationTemplate template,
            String roleLogicalId,
            String action,
            String resourceLogicalId,
            String resourceText) {
        Map<String, CloudFormationTemplate.Resource> resources = new LinkedHashMap<>();
        int revoked = 0;
        for (CloudFormationTemplate.Resource resource : template.resources().values()) {
            if (!resource.type().equals("AWS::IAM::Policy")
                    || (roleLogicalId != null
                            && !resource.property("Roles").toString().contains("\"" + roleLogicalId + "\""))) {
                resources.put(resource.logicalId(), resource);
                continue;
            }
            ObjectNode properties = resource.properties().deepCopy();
            JsonNode statements = properties.path("PolicyDocument").path("Statement");
            ArrayNode kept = JsonNodeFactory.instance.arrayNode();
            for (JsonNode statement : statements) {
                String resourceJson = statement.path("Resource").toString();
                boolean matches = "Allow".equals(statement.path("Effect").asText())
                        && resourceJson.contains("\"" + resourceLogicalId + "\"")
                        && (resourceText == null || resourceJson.contains(resourceText));
                JsonNode actions = statement.path("Action");
                if (!matches || !contains(actions, action)) {
                    kept.add(statement);
                    continue;
                }
                revoked++;
                ArrayNode remaining = JsonNodeFactory.instance.arrayNode();
                if (actions.isArray()) {
                    actions.forEach(a -> {
                        if (!a.asText().equals(action)) {
                            remaining.add(a);
                        }
                    });
                }
                if (!remaining.isEmpty()) {
                    ObjectNode copy = statement.deepCopy();
                    copy.set("Action", remaining);
                    kept.add(copy);
                }
            }
            ((ObjectNode) properties.path("PolicyDocument")).set("Statement", kept);
            resources.put(
                    resource.logicalId(),
                    new CloudFormationTemplate.Resource(
                            resource.logicalId(), resource.type(), properties, resource.metadata()));
        }
        return new Revoked(new CloudFormationTemplate(template.stackName(), resources), revoked);
    }

    /**
     * A copy of the template with one more inline policy on a role: {@code action} allowed on the
     * ARN of the resource {@code resourceLogicalId} (with {@code suffix} appended, e.g. {@code /*}
     * for a bucket's objects; null for none).
     */
    public static CloudFormationTemplate grant(
            CloudFormationTemplate template,
            String roleLogicalId,
            String action,
            String resourceLogicalId,
            String suffix) {
        JsonNodeFactory json = JsonNodeFactory.instance;
        ObjectNode arn = json.objectNode();
        arn.putArray("Fn::GetAtt").add(resourceLogicalId).add("Arn");
        if (suffix == null) {
            return grant(template, roleLogicalId, action, arn);
        }
        ArrayNode join = json.arrayNode();
        join.add("");
        join.addArray().add(arn).add(suffix);
        ObjectNode joined = json.objectNode();
        joined.set("Fn::Join", join);
        return grant(template, roleLogicalId, action, joined);
    }

    /**
     * A copy of the template with one more inline policy on a role: {@code action} allowed on
     * {@code resource}, a template value ({@code "*"}, an ARN, or an intrinsic that yields one).
     */
    public static CloudFormationTemplate grant(
            CloudFormationTemplate template, String roleLogicalId, String action, JsonNode resource) {
        JsonNodeFactory json = JsonNodeFactory.instance;
        ObjectNode properties = json.objectNode();
        // one more policy per grant (its own name too): a second grant adds to the first, not replaces it
        String logicalId = "MutationPolicy";
        for (int n = 2; template.resources().containsKey(logicalId); n++) {
            logicalId = "MutationPolicy" + n;
        }
        properties.put("PolicyName", logicalId.replace("MutationPolicy", "mutation"));
        properties.putArray("Roles").addObject().put("Ref", roleLogicalId);
        ObjectNode document = properties.putObject("PolicyDocument");
        document.put("Version", "2012-10-17");
        ObjectNode statement = document.putArray("Statement").addObject();
        statement.put("Effect", "Allow");
        statement.put("Action", action);
        statement.set("Resource", resource);
        Map<String, CloudFormationTemplate.Resource> resources = new LinkedHashMap<>(template.resources());
        resources.put(
                logicalId,
                new CloudFormationTemplate.Resource(logicalId, "AWS::IAM::Policy", properties, json.objectNode()));
        return new CloudFormationTemplate(template.stackName(), resources);
    }

    private static boolean contains(JsonNode actions, String action) {
        if (actions.isTextual()) {
            return actions.asText().equals(action);
        }
        for (JsonNode a : actions) {
            if (a.asText().equals(action)) {
                return true;
            }
        }
        return false;
    }
}
