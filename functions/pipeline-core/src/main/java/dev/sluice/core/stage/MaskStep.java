package dev.sluice.core.stage;

import dev.sluice.core.event.DeadLetter;
import dev.sluice.core.pii.PiiField;
import dev.sluice.core.pii.PiiPolicy;
import dev.sluice.core.pii.Tokenizer;
import java.util.List;

/**
 * Protects personal data as the schema's {@code x-pii} annotations say — tokenize (keyed
 * HMAC-SHA256, stable so masked data stays joinable), mask (card numbers keep their last four
 * digits) or drop — before the event reaches any sink.
 */
final class MaskStep implements Step {

    private final PiiPolicy policy;
    private final Tokenizer tokenizer;

    MaskStep(PiiPolicy policy, Tokenizer tokenizer) {
        this.policy = policy;
        this.tokenizer = tokenizer;
    }

    @Override
    public boolean keepsBytes() {
        return true; // each replaced value is recorded in the context's edits
    }

    /**
     * The annotated fields; {@code null} (the whole event) when the policy drops a field: a removed
     * member cannot be spliced into the record's bytes, so such a chain reads each record into its
     * tree rather than reading it twice.
     */
    @Override
    public List<List<String>> reads() {
        boolean drops = policy.fields().stream().anyMatch(field -> field.action() == PiiField.Action.DROP);
        return drops ? null : policy.namedPaths();
    }

    @Override
    public DeadLetter apply(EventContext context) {
        policy.apply(context.event(), tokenizer, context.edits());
        return null;
    }
}
