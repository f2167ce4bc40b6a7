package dev.sluice.cdk;

import dev.sluice.core.definition.Classification;
import dev.sluice.core.definition.Persona;
import dev.sluice.core.definition.StageDefinition;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import software.amazon.awscdk.services.iam.AnyPrincipal;
import software.amazon.awscdk.services.iam.Effect;
import software.amazon.awscdk.services.iam.IRole;
import software.amazon.awscdk.services.iam.PolicyStatement;
import software.amazon.awscdk.services.kinesis.Stream;

/**
 * Restricted data protected on the resource side, so that an account-wide read grant (a broad
 * managed policy, a permissive SSO role) cannot read it: every {@code restricted} stream, every
 * dead-letter queue (raw records) and every secret (tokenization keys) carries an explicit {@code
 * Deny} of its data reads for every principal but the ones that must read it, in its resource policy
 * and in the key policy of the key that encrypts it.
 *
 * <table>
 *   <tr><th>data</th><th>who may read</th><th>resource policy denies</th><th>key policy denies</th></tr>
 *   <tr><td>restricted stream</td><td>admin, the stages whose input it is</td>
 *       <td>{@code kinesis:GetRecords}, {@code GetShardIterator}</td>
 *       <td>{@code kms:Decrypt} of the streams key with that stream's encryption context ({@code aws:kinesis:arn})</td></tr>
 *   <tr><td>dead-letter queue</td><td>admin (replays); stages send</td><td>{@code sqs:ReceiveMessage}</td>
 *       <td>{@code kms:Decrypt} of the dead-letters key but to admin and the stages (SQS senders decrypt the data key)</td></tr>
 *   <tr><td>secret</td><td>the stages whose {@code mask} steps use it (not admin)</td>
 *       <td>{@code secretsmanager:GetSecretValue}</td>
 *       <td>{@code kms:Decrypt} of the secrets key but to those stages</td></tr>
 * </table>
 *
 * <p>Each deny names the exempt principals with {@code aws:PrincipalArn} ({@code ArnNotEquals}), which
 * matches an assumed-role session by its role's ARN and survives a role's re-creation, and applies to
 * data reads only: administering the resource or the key (CloudFormation's deployment role, the
 * account root through the key's default statement) is never denied, so a stack update can always
 * change who reads. Service principals are not denied ({@code aws:PrincipalIsAWSService}).
 */
final class RestrictedData {

    /** Sid of every deny this class adds. */
    static final String SID = "OnlyNamedPrincipalsReadRestrictedData";

    /** The stream reads a restricted stream's resource policy denies. */
    static final List<String> STREAM_READS = List.of("kinesis:GetRecords", "kinesis:GetShardIterator");

    private RestrictedData() {}

    static void protect(PipelineStack stack) {
        IRole admin = stack.getPersonas().getRole(Persona.ADMIN);
        Map<String, List<IRole>> stageRoles = stageRoles(stack);

        stack.getDefinition().streams().forEach((name, definition) -> {
            if (definition.classification() != Classification.RESTRICTED) {
                return;
            }
            List<IRole> readers = new ArrayList<>(List.of(admin));
            stack.getDefinition().stages().forEach((stageName, stage) -> {
                if (stage.input().equals(name)) {
                    readers.addAll(stageRoles.get(stageName));
                }
            });
            Stream stream = stack.getStream(name);
            stream.addToResourcePolicy(deny(STREAM_READS, List.of(stream.getStreamArn()), readers, Map.of()));
            stack.getKey(PipelineKeys.Use.STREAMS)
                    .addToResourcePolicy(deny(
                            List.of("kms:Decrypt"),
                            List.of("*"),
                            readers,
                            Map.of("kms:EncryptionContext:aws:kinesis:arn", stack.restrictedStreamArn(name))));
        });

        List<IRole> senders = new ArrayList<>(List.of(admin));
        stageRoles.values().forEach(senders::addAll);
        stack.getQueues()
                .values()
                .forEach(queue -> queue.addToResourcePolicy(
                        deny(List.of("sqs:ReceiveMessage"), List.of(queue.getQueueArn()), List.of(admin), Map.of())));
        if (!stack.getQueues().isEmpty()) {
            stack.getKey(PipelineKeys.Use.DEAD_LETTERS)
                    .addToResourcePolicy(deny(List.of("kms:Decrypt"), List.of("*"), senders, Map.of()));
        }

        List<IRole> maskers = new ArrayList<>();
        stack.getSecrets().forEach((secretName, secret) -> {
            List<IRole> readers = new ArrayList<>();
            stack.getDefinition().stages().forEach((stageName, stage) -> {
                if (StageSteps.secrets(stage).contains(secretName)) {
                    readers.addAll(stageRoles.get(stageName));
                }
            });
            maskers.addAll(readers);
            secret.addToResourcePolicy(deny(List.of("secretsmanager:GetSecretValue"), List.of("*"), readers, Map.of()));
        });
        if (!stack.getSecrets().isEmpty()) {
            stack.getKey(PipelineKeys.Use.SECRETS)
                    .addToResourcePolicy(deny(List.of("kms:Decrypt"), List.of("*"), maskers, Map.of()));
        }
    }

    /** Each deployed stage's role(s): a Lambda stage's function role, a KCL stage's task role. */
    static Map<String, List<IRole>> stageRoles(PipelineStack stack) {
        Map<String, List<IRole>> out = new LinkedHashMap<>();
        for (Map.Entry<String, StageDefinition> stage :
                stack.getDefinition().stages().entrySet()) {
            String name = stage.getKey();
            if (stack.getLambdaStages().containsKey(name)) {
                out.put(name, List.of(stack.getLambdaStage(name).getRole()));
            } else if (stack.getKclStages().containsKey(name)) {
                out.put(
                        name,
                        List.of(stack.getKclStage(name).getTaskDefinition().getTaskRole()));
            } else {
                out.put(name, List.of());
            }
        }
        return out;
    }

    private static PolicyStatement deny(
            List<String> actions, List<String> resources, List<IRole> exempt, Map<String, String> matching) {
        Map<String, Object> conditions = new LinkedHashMap<>();
        conditions.put("BoolIfExists", Map.of("aws:PrincipalIsAWSService", "false"));
        if (!exempt.isEmpty()) {
            conditions.put(
                    "ArnNotEquals",
                    Map.of(
                            "aws:PrincipalArn",
                            exempt.stream().map(IRole::getRoleArn).distinct().toList()));
        }
        if (!matching.isEmpty()) {
            conditions.put("StringEquals", matching);
        }
        return PolicyStatement.Builder.create()
                .sid(SID)
                .effect(Effect.DENY)
                .principals(List.of(new AnyPrincipal()))
                .actions(actions)
                .resources(resources)
                .conditions(conditions)
                .build();
    }
}
