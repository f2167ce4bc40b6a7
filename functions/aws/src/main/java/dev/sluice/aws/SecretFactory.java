package dev.sluice.aws;

import dev.sluice.aws.secrets.SecretsManagerSecretProvider;
import dev.sluice.core.definition.EnvironmentNames;
import dev.sluice.core.definition.StepType;
import dev.sluice.core.pii.CachingSecretProvider;
import dev.sluice.core.pii.FileSecretProvider;
import dev.sluice.core.pii.SecretProvider;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;

/** Builds the secret provider of a stage that masks: secret files locally, Secrets Manager in AWS. */
final class SecretFactory {

    /** How long a secret read from Secrets Manager is reused before it is read again. */
    static final Duration SECRET_TTL = Duration.ofMinutes(15);

    private SecretFactory() {}

    /** The stage's secrets, or {@code null} when no step of it masks (nothing reads a secret). */
    static SecretProvider secrets(StageContext context) {
        boolean masks = context.stage().steps().stream().anyMatch(step -> step.type() == StepType.MASK);
        if (!masks) {
            return null;
        }
        if (context.env().containsKey(EnvironmentNames.SECRETS_DIR)) {
            return new FileSecretProvider(Path.of(context.env().get(EnvironmentNames.SECRETS_DIR)));
        }
        return new CachingSecretProvider(
                new SecretsManagerSecretProvider(
                        context.clients().secretsManager(), name -> context.required(EnvironmentNames.secretId(name))),
                SECRET_TTL,
                Clock.systemUTC());
    }
}
