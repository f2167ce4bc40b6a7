package dev.sluice.local.template;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;

/**
 * Resolves CloudFormation intrinsic functions to local values: {@code Ref} and {@code Fn::GetAtt} of
 * provisioned resources (their local names, URLs and ARNs), the pseudo parameters, {@code
 * Fn::Join}, {@code Fn::Sub} and {@code Fn::Select}. A reference to a resource the local stack does
 * not provision (an AWS-only one) or an unsupported function fails with the place it was met.
 */
public final class Intrinsics {

    private final CloudFormationTemplate template;
    private final Map<String, LocalResource> locals;
    private final Map<String, String> pseudo;

    /**
     * @param template the template (to name the types of unresolvable references)
     * @param locals the provisioned resources by logical id
     * @param region the local region
     * @param account the local account id
     */
    public Intrinsics(
            CloudFormationTemplate template, Map<String, LocalResource> locals, String region, String account) {
        this.template = template;
        this.locals = locals;
        this.pseudo = Map.of(
                "AWS::Region",
                region,
                "AWS::AccountId",
                account,
                "AWS::Partition",
                "aws",
                "AWS::URLSuffix",
                "amazonaws.com",
                "AWS::StackName",
                template.stackName(),
                "AWS::StackId",
                "arn:aws:cloudformation:" + region + ":" + account + ":stack/" + template.stackName() + "/local");
    }

    /** The value resolved to a string. */
    public String string(JsonNode value, String where) {
        JsonNode resolved = resolve(value, where);
        if (!resolved.isValueNode()) {
            throw new IllegalStateException(where + ": expected a string, got " + resolved);
        }
        return resolved.asText();
    }

    /** The value with every intrinsic function in it resolved. */
    public JsonNode resolve(JsonNode value, String where) {
        if (value == null || value.isMissingNode() || value.isValueNode()) {
            return value;
        }
        if (value.isArray()) {
            ArrayNode out = JsonNodeFactory.instance.arrayNode();
            value.forEach(item -> out.add(resolve(item, where)));
            return out;
        }
        if (value.size() == 1) {
            String function = value.fieldNames().next();
            JsonNode argument = value.get(function);
            switch (function) {
                case "Ref":
                    return TextNode.valueOf(ref(argument.asText(), where));
                case "Fn::GetAtt":
                    return TextNode.valueOf(getAtt(argument, where));
                case "Fn::Join":
                    return TextNode.valueOf(join(argument, where));
                case "Fn::Sub":
                    return TextNode.valueOf(sub(argument, where));
                case "Fn::Select":
                    return select(argument, where);
                default:
                    if (function.startsWith("Fn::") || function.equals("Condition")) {
                        throw new IllegalStateException(
                                where + ": the local stack cannot resolve " + function + " (" + value + ")");
                    }
            }
        }
        ObjectNode out = JsonNodeFactory.instance.objectNode();
        Iterator<Map.Entry<String, JsonNode>> fields = value.fields();
        while (fields.hasNext()) {
            Map.Entry<String, JsonNode> field = fields.next();
            out.set(field.getKey(), resolve(field.getValue(), where));
        }
        return out;
    }

    private String ref(String name, String where) {
        String parameter = pseudo.get(name);
        if (parameter != null) {
            return parameter;
        }
        return local(name, "Ref", where).ref();
    }

    private String getAtt(JsonNode argument, String where) {
        String id;
        String attribute;
        if (argument.isArray() && argument.size() == 2) {
            id = argument.get(0).asText();
            attribute = string(argument.get(1), where);
        } else if (argument.isTextual() && argument.asText().contains(".")) {
            id = argument.asText().substring(0, argument.asText().indexOf('.'));
            attribute = argument.asText().substring(argument.asText().indexOf('.') + 1);
        } else {
            throw new IllegalStateException(where + ": malformed Fn::GetAtt " + argument);
        }
        LocalResource resource = local(id, "Fn::GetAtt " + attribute, where);
        String value = resource.attributes().get(attribute);
        if (value == null) {
            throw new IllegalStateException(
                    where + ": the local stack has no attribute " + attribute + " of " + resource.type() + " " + id
                            + " (it knows " + resource.attributes().keySet() + ")");
        }
        return value;
    }

    private LocalResource local(String id, String what, String where) {
        LocalResource resource = locals.get(id);
        if (resource != null) {
            return resource;
        }
        CloudFormationTemplate.Resource declared = template.resources().get(id);
        if (declared == null) {
            throw new IllegalStateException(
                    where + ": " + what + " names " + id + ", which is no resource of " + template.stackName());
        }
        throw new IllegalStateException(where + ": " + what + " of " + id + " (" + declared.type()
                + ") cannot be resolved locally: the local stack does not provision that resource");
    }

    private String join(JsonNode argument, String where) {
        if (!argument.isArray() || argument.size() != 2) {
            throw new IllegalStateException(where + ": malformed Fn::Join " + argument);
        }
        String separator = argument.get(0).asText();
        JsonNode parts = resolve(argument.get(1), where);
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < parts.size(); i++) {
            if (i > 0) {
                out.append(separator);
            }
            out.append(parts.get(i).asText());
        }
        return out.toString();
    }

    private JsonNode select(JsonNode argument, String where) {
        if (!argument.isArray() || argument.size() != 2) {
            throw new IllegalStateException(where + ": malformed Fn::Select " + argument);
        }
        int index = Integer.parseInt(string(argument.get(0), where));
        JsonNode list = resolve(argument.get(1), where);
        if (!list.isArray() || index < 0 || index >= list.size()) {
            throw new IllegalStateException(where + ": Fn::Select index " + index + " out of " + list);
        }
        return list.get(index);
    }

    private String sub(JsonNode argument, String where) {
        String text;
        Map<String, String> variables = new HashMap<>();
        if (argument.isTextual()) {
            text = argument.asText();
        } else if (argument.isArray() && argument.size() == 2) {
            text = argument.get(0).asText();
            argument.get(1).fields().forEachRemaining(e -> variables.put(e.getKey(), string(e.getValue(), where)));
        } else {
            throw new IllegalStateException(where + ": malformed Fn::Sub " + argument);
        }
        StringBuilder out = new StringBuilder();
        int i = 0;
        while (i < text.length()) {
            int start = text.indexOf("${", i);
            if (start < 0) {
                out.append(text, i, text.length());
                break;
            }
            out.append(text, i, start);
            int end = text.indexOf('}', start);
            if (end < 0) {
                throw new IllegalStateException(where + ": unterminated ${ in Fn::Sub " + text);
            }
            String name = text.substring(start + 2, end);
            if (name.startsWith("!")) {
                out.append("${").append(name.substring(1)).append('}');
            } else if (variables.containsKey(name)) {
                out.append(variables.get(name));
            } else if (name.contains(".") && !pseudo.containsKey(name)) {
                out.append(getAtt(TextNode.valueOf(name), where));
            } else {
                out.append(ref(name, where));
            }
            i = end + 1;
        }
        return out.toString();
    }
}
