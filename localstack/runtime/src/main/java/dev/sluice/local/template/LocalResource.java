package dev.sluice.local.template;

import java.util.Map;

/**
 * A template resource as it exists in the local stack: its local physical name and what {@code Ref}
 * and {@code Fn::GetAtt} give for it locally.
 *
 * @param logicalId the template's logical id
 * @param type the CloudFormation type
 * @param name the local physical name
 * @param ref what {@code Ref} returns (a name, a queue URL, an ARN: as CloudFormation does for the type)
 * @param attributes what {@code Fn::GetAtt} returns, by attribute name
 */
public record LocalResource(String logicalId, String type, String name, String ref, Map<String, String> attributes) {

    public LocalResource {
        attributes = Map.copyOf(attributes);
    }
}
