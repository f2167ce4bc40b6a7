package dev.sluice.local.iam;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.local.template.CloudFormationTemplate;
import dev.sluice.local.template.Intrinsics;
import dev.sluice.local.template.LocalResource;
import dev.sluice.local.template.PhysicalNames;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Who may do what, read from a synthesized CloudFormation template: each {@code AWS::IAM::Role} as a
 * principal (its ARN, inline {@code AWS::IAM::Policy}s and {@code Policies}, managed policies —
 * AWS-managed ones expanded from pinned copies of their documents, {@code
 * sluice/iam/managed-policies.json} — and permissions boundary) with local credentials, and each
 * resource's policy ({@code AWS::KMS::Key} key policy, {@code AWS::S3::BucketPolicy}, {@code
 * AWS::SQS::QueuePolicy}, {@code AWS::Kinesis::ResourcePolicy}, {@code
 * AWS::SecretsManager::ResourcePolicy}) and KMS key (streams, tables, buckets, queues, secrets, log
 * groups). Policies are resolved with the local stack's names and ARNs ({@link Intrinsics}); the
 * AWS-only resources they name (roles, keys, log groups, topics...) get local ARNs in AWS's format.
 */
public final class AccessModel {

    private static final Logger LOG = LoggerFactory.getLogger(AccessModel.class);
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Pattern PERSONA = Pattern.compile("persona ([a-z0-9-]+)$");
    private static final Map<String, JsonNode> MANAGED = loadManaged();
    /** The tables KCL names after its application ({@code <application>-CoordinatorState}...). */
    private static final List<String> KCL_APPLICATION_TABLES =
            List.of("-CoordinatorState", "-WorkerMetricStats", "-CoordinatorState/*", "-WorkerMetricStats/*");

    /**
     * A named policy document.
     *
     * @param name where it comes from (the policy's logical id or managed ARN)
     * @param document the resolved document
     */
    public record NamedPolicy(String name, JsonNode document) {}

    /**
     * What an AWS service does as itself (a service principal, not a caller's session) with this
     * stack's resources, which AWS authorizes against their key and resource policies alone: CloudWatch
     * Logs encrypting a log group with its key (checked when the group is created: a refusal fails
     * the deployment), CloudWatch publishing an alarm to its encrypted SNS topic (checked when the
     * alarm fires: a refusal loses the notification).
     *
     * @param purpose what the use is for, in words
     * @param principal the service principal ({@code logs.us-east-1.amazonaws.com})
     * @param failsDeployment whether AWS refuses the deployment when a check is denied
     * @param checks the authorizations, all of which must be allowed
     */
    public record ServiceUse(String purpose, String principal, boolean failsDeployment, List<Check> checks) {}

    /** One authorization of a {@link ServiceUse}: action, resource and the context AWS sends. */
    public record Check(String action, String resource, Map<String, List<String>> context) {}

    /**
     * A role of the template as a local principal.
     *
     * @param logicalId the role's logical id
     * @param roleName the local role name
     * @param arn {@code arn:aws:iam::<account>:role/<name>}
     * @param accessKeyId its local access key id
     * @param secretAccessKey its local secret key
     * @param persona the persona it is ({@code analyst}...), or null for a stage's role
     * @param identityPolicies the identity policies
     * @param boundaries the permissions boundary, if any
     */
    public record Principal(
            String logicalId,
            String roleName,
            String arn,
            String accessKeyId,
            String secretAccessKey,
            String persona,
            List<NamedPolicy> identityPolicies,
            List<NamedPolicy> boundaries) {

        /** The session ARN AWS names in messages: {@code arn:aws:sts::<account>:assumed-role/<role>/local}. */
        public String sessionArn(String account) {
            return "arn:aws:sts::" + account + ":assumed-role/" + roleName + "/local";
        }
    }

    private final String stackName;
    private final String region;
    private final String account;
    private final Map<String, Principal> principalsByLogicalId = new LinkedHashMap<>();
    private final Map<String, Principal> principalsByArn = new LinkedHashMap<>();
    private final Map<String, JsonNode> resourcePolicies = new LinkedHashMap<>();
    private final Map<String, String> keysByResource = new LinkedHashMap<>();
    private final List<ServiceUse> serviceUses = new ArrayList<>();
    private final Map<String, String> roleByFunction = new LinkedHashMap<>();
    private final Map<String, String> roleByTaskDefinition = new LinkedHashMap<>();
    private final Map<String, String> logGroupByFunction = new LinkedHashMap<>();
    private final List<String> unresolved = new ArrayList<>();
    private final Map<String, String> renamedApplications = new LinkedHashMap<>();
    private final Map<String, String> renamedStreams = new LinkedHashMap<>();
    private final Map<String, String> arnsByLogicalId = new LinkedHashMap<>();

    private AccessModel(String stackName, String region, String account) {
        this.stackName = stackName;
        this.region = region;
        this.account = account;
    }

    /**
     * Reads the access model of a template.
     *
     * @param provisioned the resources the local stack provisioned, by logical id (their local names
     *     and ARNs)
     */
    public static AccessModel from(
            CloudFormationTemplate template, Map<String, LocalResource> provisioned, String region, String account) {
        return from(template, provisioned, region, account, template.stackName());
    }

    /**
     * Like {@link #from(CloudFormationTemplate, Map, String, String)} for one deployment of the
     * stack ({@code deployment} names it and seeds its principals' keys: tests deploy the same
     * stack under several names).
     */
    public static AccessModel from(
            CloudFormationTemplate template,
            Map<String, LocalResource> provisioned,
            String region,
            String account,
            String deployment) {
        return from(template, provisioned, region, account, deployment, Map.of());
    }

    /**
     * Like {@link #from(CloudFormationTemplate, Map, String, String, String)}, with names the local
     * stack gives differently than the template (a KCL application renamed per test: its {@code
     * <application>-CoordinatorState} tables in the policies follow).
     *
     * @param renamedApplications the template's KCL application names → their local names
     */
    public static AccessModel from(
            CloudFormationTemplate template,
            Map<String, LocalResource> provisioned,
            String region,
            String account,
            String deployment,
            Map<String, String> renamedApplications) {
        AccessModel model = new AccessModel(deployment, region, account);
        model.renamedApplications.putAll(renamedApplications);
        model.read(template, provisioned);
        return model;
    }

    private void read(CloudFormationTemplate template, Map<String, LocalResource> provisioned) {
        Map<String, LocalResource> locals = new LinkedHashMap<>(provisioned);
        template.resources().values().forEach(resource -> {
            if (!locals.containsKey(resource.logicalId())) {
                locals.put(resource.logicalId(), shadow(resource));
            }
        });
        locals.forEach((id, local) -> {
            String arn = local.attributes().get("Arn");
            arnsByLogicalId.put(id, arn != null && arn.startsWith("arn:") ? arn : local.ref());
        });
        // a stream the template names (a restricted stream: its key policy's encryption-context deny
        // names it by ARN, without a reference) has another name locally: policies follow
        template.resources().values().forEach(resource -> {
            JsonNode name = resource.property("Name");
            LocalResource local = locals.get(resource.logicalId());
            if (resource.type().equals("AWS::Kinesis::Stream")
                    && name.isTextual()
                    && !name.asText().equals(local.name())) {
                renamedStreams.put(name.asText(), local.name());
            }
        });
        Intrinsics intrinsics = new Intrinsics(template, locals, region, account);
        Map<String, List<NamedPolicy>> inline = new LinkedHashMap<>();
        for (CloudFormationTemplate.Resource resource : template.resources().values()) {
            String where = template.stackName() + " " + resource.logicalId();
            switch (resource.type()) {
                case "AWS::IAM::Policy" -> {
                    JsonNode document = document(intrinsics, resource.property("PolicyDocument"), where);
                    for (JsonNode role : resource.property("Roles")) {
                        String roleName = resolveText(intrinsics, role, where);
                        if (roleName != null) {
                            inline.computeIfAbsent(roleName, r -> new ArrayList<>())
                                    .add(new NamedPolicy(resource.logicalId(), document));
                        }
                    }
                }
                case "AWS::KMS::Key" ->
                    resourcePolicies.put(
                            locals.get(resource.logicalId()).attributes().get("Arn"),
                            document(intrinsics, resource.property("KeyPolicy"), where));
                case "AWS::S3::BucketPolicy" -> {
                    String bucket = resolveText(intrinsics, resource.property("Bucket"), where);
                    if (bucket != null) {
                        resourcePolicies.put(
                                "arn:aws:s3:::" + bucket,
                                document(intrinsics, resource.property("PolicyDocument"), where));
                    }
                }
                case "AWS::SQS::QueuePolicy" -> {
                    JsonNode document = document(intrinsics, resource.property("PolicyDocument"), where);
                    for (JsonNode queue : resource.property("Queues")) {
                        String url = resolveText(intrinsics, queue, where);
                        if (url != null) {
                            resourcePolicies.put(
                                    "arn:aws:sqs:" + region + ":" + account + ":"
                                            + url.substring(url.lastIndexOf('/') + 1),
                                    document);
                        }
                    }
                }
                case "AWS::Kinesis::ResourcePolicy" -> {
                    // CloudFormation's property is ResourceArn
                    JsonNode target = resource.property("ResourceArn");
                    String arn = resolveText(
                            intrinsics, target.isMissingNode() ? resource.property("ResourceARN") : target, where);
                    if (arn != null) {
                        resourcePolicies.put(arn, document(intrinsics, resource.property("ResourcePolicy"), where));
                    }
                }
                case "AWS::SecretsManager::ResourcePolicy" -> {
                    String arn = resolveText(intrinsics, resource.property("SecretId"), where);
                    if (arn != null) {
                        resourcePolicies.put(arn, document(intrinsics, resource.property("ResourcePolicy"), where));
                    }
                }
                default -> {}
            }
            encryptionKey(intrinsics, resource, locals, where);
            switch (resource.type()) {
                case "AWS::Lambda::Function" -> {
                    String role = resolveText(intrinsics, resource.property("Role"), where);
                    String name = locals.get(resource.logicalId()).name();
                    if (role != null) {
                        roleByFunction.put(name, role);
                    }
                    JsonNode logGroup = resource.property("LoggingConfig").path("LogGroup");
                    String group =
                            logGroup.isMissingNode() ? "/aws/lambda/" + name : resolveText(intrinsics, logGroup, where);
                    if (group != null) {
                        logGroupByFunction.put(name, group);
                    }
                }
                case "AWS::ECS::TaskDefinition" -> {
                    String role = resolveText(intrinsics, resource.property("TaskRoleArn"), where);
                    if (role != null) {
                        roleByTaskDefinition.put(
                                locals.get(resource.logicalId()).name(), role);
                    }
                }
                default -> {}
            }
        }
        for (CloudFormationTemplate.Resource resource : template.resources().values()) {
            if (!resource.type().equals("AWS::IAM::Role")) {
                continue;
            }
            String where = template.stackName() + " " + resource.logicalId();
            LocalResource local = locals.get(resource.logicalId());
            List<NamedPolicy> policies = new ArrayList<>(inline.getOrDefault(local.name(), List.of()));
            for (JsonNode policy : resource.property("Policies")) {
                policies.add(new NamedPolicy(
                        resource.logicalId() + "/" + policy.path("PolicyName").asText("inline"),
                        document(intrinsics, policy.path("PolicyDocument"), where)));
            }
            for (JsonNode managed : resource.property("ManagedPolicyArns")) {
                String arn = resolveText(intrinsics, managed, where);
                if (arn != null) {
                    policies.add(managedPolicy(arn, template, intrinsics, locals, where));
                }
            }
            List<NamedPolicy> boundaries = new ArrayList<>();
            JsonNode boundary = resource.property("PermissionsBoundary");
            if (!boundary.isMissingNode()) {
                String arn = resolveText(intrinsics, boundary, where);
                if (arn != null) {
                    boundaries.add(managedPolicy(arn, template, intrinsics, locals, where));
                }
            }
            String description = resource.property("Description").asText("");
            Matcher persona = PERSONA.matcher(description);
            String credentialsSeed = stackName + "/" + resource.logicalId();
            Principal principal = new Principal(
                    resource.logicalId(),
                    local.name(),
                    local.attributes().get("Arn"),
                    accessKeyId(credentialsSeed),
                    "local-" + digest("secret/" + credentialsSeed).substring(0, 32),
                    persona.find() ? persona.group(1) : null,
                    List.copyOf(policies),
                    List.copyOf(boundaries));
            principalsByLogicalId.put(resource.logicalId(), principal);
            principalsByArn.put(principal.arn(), principal);
        }
        readServiceUses(template, locals, intrinsics);
    }

    /** The service uses of the template's log groups and alarms (see {@link ServiceUse}). */
    private void readServiceUses(
            CloudFormationTemplate template, Map<String, LocalResource> locals, Intrinsics intrinsics) {
        Map<String, String> topicKeys = new LinkedHashMap<>();
        for (CloudFormationTemplate.Resource resource : template.resources().values()) {
            String where = template.stackName() + " " + resource.logicalId();
            LocalResource local = locals.get(resource.logicalId());
            if (resource.type().equals("AWS::Logs::LogGroup")) {
                String group = local.attributes().get("Arn").replaceFirst(":\\*$", "");
                Optional<String> key = encryptionKey(local.attributes().get("Arn"));
                key.ifPresent(k -> {
                    String logs = "logs." + region + ".amazonaws.com";
                    Map<String, List<String>> context = serviceContext(logs, group);
                    context.put("kms:EncryptionContext:aws:logs:arn", List.of(group));
                    serviceUses.add(new ServiceUse(
                            "CloudWatch Logs encrypts log group " + local.name() + " with its key",
                            logs,
                            true,
                            List.of(
                                    new Check("kms:GenerateDataKey", k, context),
                                    new Check("kms:Decrypt", k, context))));
                });
            } else if (resource.type().equals("AWS::SNS::Topic")) {
                JsonNode key = resource.property("KmsMasterKeyId");
                String keyId = key.isMissingNode() ? null : resolveText(intrinsics, key, where);
                if (keyId != null && !keyId.startsWith("alias/aws/")) {
                    topicKeys.put(
                            local.ref(),
                            keyId.startsWith("arn:")
                                    ? keyId
                                    : "arn:aws:kms:" + region + ":" + account + ":key/" + keyId);
                }
            } else if (resource.type().equals("AWS::SNS::TopicPolicy")) {
                JsonNode document = document(intrinsics, resource.property("PolicyDocument"), where);
                for (JsonNode topic : resource.property("Topics")) {
                    String arn = resolveText(intrinsics, topic, where);
                    if (arn != null) {
                        resourcePolicies.put(arn, document);
                    }
                }
            }
        }
        for (CloudFormationTemplate.Resource resource : template.resources().values()) {
            if (!resource.type().equals("AWS::CloudWatch::Alarm")) {
                continue;
            }
            String where = template.stackName() + " " + resource.logicalId();
            String alarm = locals.get(resource.logicalId()).attributes().get("Arn");
            for (String property : List.of("AlarmActions", "OKActions", "InsufficientDataActions")) {
                for (JsonNode action : resource.property(property)) {
                    String topic = resolveText(intrinsics, action, where);
                    if (topic == null || !topic.startsWith("arn:aws:sns:")) {
                        continue;
                    }
                    String cloudwatch = "cloudwatch.amazonaws.com";
                    Map<String, List<String>> context = serviceContext(cloudwatch, alarm);
                    List<Check> checks = new ArrayList<>(List.of(new Check("sns:Publish", topic, context)));
                    String key = topicKeys.get(topic);
                    if (key != null) {
                        Map<String, List<String>> viaSns = new LinkedHashMap<>(context);
                        viaSns.put("kms:ViaService", List.of("sns." + region + ".amazonaws.com"));
                        checks.add(new Check("kms:GenerateDataKey", key, viaSns));
                        checks.add(new Check("kms:Decrypt", key, viaSns));
                    }
                    serviceUses.add(new ServiceUse(
                            "alarm " + alarm.substring(alarm.lastIndexOf(':') + 1) + " notifies "
                                    + topic.substring(topic.lastIndexOf(':') + 1) + " (" + property + ")",
                            cloudwatch,
                            false,
                            List.copyOf(checks)));
                }
            }
        }
    }

    private Map<String, List<String>> serviceContext(String servicePrincipal, String sourceArn) {
        Map<String, List<String>> context = new LinkedHashMap<>();
        context.put("aws:PrincipalIsAWSService", List.of("true"));
        context.put("aws:PrincipalServiceName", List.of(servicePrincipal));
        context.put("aws:SourceAccount", List.of(account));
        context.put("aws:SourceArn", List.of(sourceArn));
        context.put("aws:SecureTransport", List.of("true"));
        return context;
    }

    private NamedPolicy managedPolicy(
            String arn,
            CloudFormationTemplate template,
            Intrinsics intrinsics,
            Map<String, LocalResource> locals,
            String where) {
        String normalized = arn.replaceFirst("^arn:[a-z-]+:", "arn:aws:");
        JsonNode pinned = MANAGED.get(normalized);
        if (pinned != null) {
            return new NamedPolicy(normalized, pinned);
        }
        for (CloudFormationTemplate.Resource resource : template.resources().values()) {
            if (resource.type().equals("AWS::IAM::ManagedPolicy")
                    && arn.equals(locals.get(resource.logicalId()).ref())) {
                return new NamedPolicy(
                        resource.logicalId(), document(intrinsics, resource.property("PolicyDocument"), where));
            }
        }
        throw new IllegalStateException(where + ": the managed policy " + arn + " is neither in the template nor"
                + " pinned in sluice/iam/managed-policies.json; add its document there (it is never taken as"
                + " allow-all)");
    }

    private void encryptionKey(
            Intrinsics intrinsics,
            CloudFormationTemplate.Resource resource,
            Map<String, LocalResource> locals,
            String where) {
        JsonNode key;
        String arn;
        LocalResource local = locals.get(resource.logicalId());
        switch (resource.type()) {
            case "AWS::Kinesis::Stream" -> {
                key = resource.property("StreamEncryption").path("KeyId");
                arn = local.attributes().get("Arn");
            }
            case "AWS::DynamoDB::Table" -> {
                key = resource.property("SSESpecification").path("KMSMasterKeyId");
                arn = local.attributes().get("Arn");
            }
            case "AWS::S3::Bucket" -> {
                key = resource.property("BucketEncryption")
                        .path("ServerSideEncryptionConfiguration")
                        .path(0)
                        .path("ServerSideEncryptionByDefault")
                        .path("KMSMasterKeyID");
                arn = local.attributes().get("Arn");
            }
            case "AWS::SQS::Queue" -> {
                key = resource.property("KmsMasterKeyId");
                arn = local.attributes().get("Arn");
            }
            case "AWS::SecretsManager::Secret", "AWS::Logs::LogGroup" -> {
                key = resource.property("KmsKeyId");
                arn = resource.type().equals("AWS::Logs::LogGroup")
                        ? local.attributes().get("Arn")
                        : local.ref();
            }
            default -> {
                return;
            }
        }
        if (key.isMissingNode() || arn == null) {
            return;
        }
        String keyId = resolveText(intrinsics, key, where);
        if (keyId == null || keyId.startsWith("alias/aws/")) {
            return; // an AWS managed key: its policy allows the account through the service
        }
        keysByResource.put(
                arn, keyId.startsWith("arn:") ? keyId : "arn:aws:kms:" + region + ":" + account + ":key/" + keyId);
    }

    /** A policy document with its intrinsics resolved, statement by statement. */
    private JsonNode document(Intrinsics intrinsics, JsonNode document, String where) {
        if (document == null || document.isMissingNode()) {
            return JSON.createObjectNode();
        }
        ObjectNode out = JSON.createObjectNode();
        out.put("Version", document.path("Version").asText("2012-10-17"));
        ArrayNode statements = out.putArray("Statement");
        JsonNode declared = document.path("Statement");
        List<JsonNode> list = new ArrayList<>();
        if (declared.isArray()) {
            declared.forEach(list::add);
        } else if (declared.isObject()) {
            list.add(declared);
        }
        for (JsonNode statement : list) {
            try {
                statements.add(renamed(intrinsics.resolve(statement, where)));
            } catch (RuntimeException e) {
                String message = where + ": statement " + statement.path("Sid").asText("") + " not resolvable locally ("
                        + e.getMessage() + "); left out";
                unresolved.add(message);
                LOG.warn(message);
            }
        }
        return out;
    }

    /**
     * A resolved statement with the KCL applications' table ARNs and the template-named streams' ARNs
     * under their local names.
     */
    private JsonNode renamed(JsonNode statement) {
        if (renamedApplications.isEmpty() && renamedStreams.isEmpty()) {
            return statement;
        }
        String text = statement.toString();
        for (Map.Entry<String, String> rename : renamedStreams.entrySet()) {
            text = text.replace(":stream/" + rename.getKey() + "\"", ":stream/" + rename.getValue() + "\"");
        }
        for (Map.Entry<String, String> rename : renamedApplications.entrySet()) {
            for (String table : KCL_APPLICATION_TABLES) {
                text = text.replace(
                        ":table/" + rename.getKey() + table + "\"", ":table/" + rename.getValue() + table + "\"");
            }
        }
        try {
            return JSON.readTree(text);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private String resolveText(Intrinsics intrinsics, JsonNode value, String where) {
        try {
            JsonNode resolved = intrinsics.resolve(value, where);
            return resolved != null && resolved.isValueNode() ? resolved.asText() : null;
        } catch (RuntimeException e) {
            unresolved.add(where + ": " + e.getMessage());
            LOG.warn("{}: not resolvable locally: {}", where, e.getMessage());
            return null;
        }
    }

    /** The local stand-in for a resource the local stack does not provision (its name, Ref and ARN). */
    private LocalResource shadow(CloudFormationTemplate.Resource resource) {
        String id = resource.logicalId();
        // CloudFormation's name for what the template leaves unnamed: <stack>-<logicalId>-<SUFFIX>
        String fallback = PhysicalNames.generated(stackName, id, 64);
        String longFallback = PhysicalNames.generated(stackName, id, 255);
        Map<String, String> attributes = new LinkedHashMap<>();
        String name;
        String ref;
        switch (resource.type()) {
            case "AWS::IAM::Role" -> {
                name = resource.property("RoleName").asText(fallback);
                ref = name;
                attributes.put("Arn", "arn:aws:iam::" + account + ":role/" + name);
                attributes.put("RoleId", "AROA" + digest(name).substring(0, 17).toUpperCase(Locale.ROOT));
            }
            case "AWS::IAM::ManagedPolicy" -> {
                name = resource.property("ManagedPolicyName").asText(PhysicalNames.generated(stackName, id, 128));
                ref = "arn:aws:iam::" + account + ":policy/" + name;
                attributes.put("PolicyArn", ref);
            }
            case "AWS::KMS::Key" -> {
                name = UUID.nameUUIDFromBytes((stackName + "/" + id).getBytes(StandardCharsets.UTF_8))
                        .toString();
                ref = name;
                attributes.put("Arn", "arn:aws:kms:" + region + ":" + account + ":key/" + name);
                attributes.put("KeyId", name);
            }
            case "AWS::KMS::Alias" -> {
                name = resource.property("AliasName").asText("alias/" + fallback);
                ref = name;
            }
            case "AWS::Logs::LogGroup" -> {
                name = resource.property("LogGroupName").asText(longFallback);
                ref = name;
                attributes.put("Arn", "arn:aws:logs:" + region + ":" + account + ":log-group:" + name + ":*");
            }
            case "AWS::SNS::Topic" -> {
                name = resource.property("TopicName").asText(longFallback);
                ref = "arn:aws:sns:" + region + ":" + account + ":" + name;
                attributes.put("TopicArn", ref);
                attributes.put("TopicName", name);
            }
            case "AWS::CloudWatch::Dashboard" -> {
                name = resource.property("DashboardName").asText(longFallback);
                ref = name;
                attributes.put("Arn", "arn:aws:cloudwatch::" + account + ":dashboard/" + name);
            }
            case "AWS::CloudWatch::Alarm" -> {
                name = resource.property("AlarmName").asText(longFallback);
                ref = name;
                attributes.put("Arn", "arn:aws:cloudwatch:" + region + ":" + account + ":alarm:" + name);
            }
            case "AWS::ECS::Cluster" -> {
                name = resource.property("ClusterName").asText(longFallback);
                ref = name;
                attributes.put("Arn", "arn:aws:ecs:" + region + ":" + account + ":cluster/" + name);
            }
            default -> {
                name = fallback;
                ref = id;
                attributes.put("Arn", "arn:aws:cloudformation:" + region + ":" + account + ":local/" + id);
            }
        }
        attributes.putIfAbsent("Arn", ref);
        return new LocalResource(id, resource.type(), name, ref, attributes);
    }

    /** A 20-character access key id in AWS's shape ({@code AKIA} + 16), never 12 digits (kinesis-mock's account). */
    static String accessKeyId(String seed) {
        return "AKIA" + digest(seed).substring(0, 16).toUpperCase(Locale.ROOT);
    }

    static String digest(String text) {
        try {
            return HexFormat.of()
                    .formatHex(MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private static Map<String, JsonNode> loadManaged() {
        try (InputStream in = AccessModel.class.getResourceAsStream("/sluice/iam/managed-policies.json")) {
            if (in == null) {
                throw new IllegalStateException("sluice/iam/managed-policies.json is missing from the classpath");
            }
            Map<String, JsonNode> out = new LinkedHashMap<>();
            JSON.readTree(in).fields().forEachRemaining(e -> {
                if (e.getKey().startsWith("arn:")) {
                    out.put(e.getKey(), e.getValue());
                }
            });
            return out;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    // ---- queries -------------------------------------------------------------------------------

    public String stackName() {
        return stackName;
    }

    /** Every principal (role), by logical id. */
    public Map<String, Principal> principals() {
        return java.util.Collections.unmodifiableMap(principalsByLogicalId);
    }

    /** The principal with this role ARN. */
    public Optional<Principal> principalByArn(String arn) {
        return Optional.ofNullable(principalsByArn.get(arn));
    }

    /** The persona roles by persona name ({@code admin}, {@code analyst}, ...). */
    public Map<String, Principal> personas() {
        Map<String, Principal> out = new LinkedHashMap<>();
        principalsByLogicalId.values().forEach(p -> {
            if (p.persona() != null) {
                out.put(p.persona(), p);
            }
        });
        return out;
    }

    /** The execution role of a local Lambda function ({@code <pipeline>-<stage>}). */
    public Optional<Principal> functionRole(String functionName) {
        return Optional.ofNullable(roleByFunction.get(functionName)).flatMap(this::principalByArn);
    }

    /** The task role of a KCL stage's task definition (by stage). */
    public Optional<Principal> taskRole(String stage) {
        return Optional.ofNullable(roleByTaskDefinition.get(stage)).flatMap(this::principalByArn);
    }

    /** The log group a function writes to. */
    public Optional<String> functionLogGroup(String functionName) {
        return Optional.ofNullable(logGroupByFunction.get(functionName));
    }

    /** The resource policy of a resource ARN (an object's is its bucket's, an index's its table's). */
    /** What AWS services do as themselves with this stack's keys and topics (see {@link ServiceUse}). */
    public List<ServiceUse> serviceUses() {
        return List.copyOf(serviceUses);
    }

    public Optional<JsonNode> resourcePolicy(String arn) {
        return Optional.ofNullable(resourcePolicies.get(owner(arn)));
    }

    /** The KMS key ARN that encrypts a resource, if a customer-managed one does. */
    public Optional<String> encryptionKey(String arn) {
        String owner = owner(arn);
        // a stream consumer reads its stream's records: SubscribeToShard decrypts with the stream's key
        int consumer = owner.startsWith("arn:aws:kinesis:") ? owner.indexOf("/consumer/") : -1;
        return Optional.ofNullable(keysByResource.get(consumer < 0 ? owner : owner.substring(0, consumer)));
    }

    /** Whether the model knows this resource (its own policy or key). */
    public boolean knows(String arn) {
        String owner = owner(arn);
        return resourcePolicies.containsKey(owner) || keysByResource.containsKey(owner);
    }

    /**
     * The local ARN of a template resource, provisioned or AWS-only (a dashboard, an alarm, a log
     * group, a key, a secret...), as the policies of this model name it.
     */
    public Optional<String> arnOf(String logicalId) {
        return Optional.ofNullable(arnsByLogicalId.get(logicalId));
    }

    /** What the template said that could not be resolved locally (left out of the policies). */
    public List<String> unresolved() {
        return List.copyOf(unresolved);
    }

    /** The resource whose policy and key govern an ARN: a bucket for its objects, a table for its indexes. */
    static String owner(String arn) {
        if (arn.startsWith("arn:aws:s3:::")) {
            int slash = arn.indexOf('/');
            return slash < 0 ? arn : arn.substring(0, slash);
        }
        if (arn.startsWith("arn:aws:dynamodb:")) {
            int index = arn.indexOf("/index/");
            if (index < 0) {
                index = arn.indexOf("/stream/");
            }
            return index < 0 ? arn : arn.substring(0, index);
        }
        return arn;
    }

    @Override
    public String toString() {
        return "AccessModel[" + stackName + ": " + principalsByLogicalId.size() + " roles, " + resourcePolicies.size()
                + " resource policies, " + keysByResource.size() + " encrypted resources]";
    }
}
