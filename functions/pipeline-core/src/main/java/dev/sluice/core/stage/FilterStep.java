package dev.sluice.core.stage;

import dev.sluice.core.event.DeadLetter;
import dev.sluice.core.event.ReasonCode;
import dev.sluice.core.expr.ExpressionException;
import dev.sluice.core.expr.Predicate;
import java.util.List;

/** Keeps the events for which its expression is true; the others are dropped, not dead lettered. */
final class FilterStep implements Step {

    private final Predicate when;

    FilterStep(Predicate when) {
        this.when = when;
    }

    @Override
    public boolean keepsBytes() {
        return true; // reads the event only
    }

    @Override
    public List<List<String>> reads() {
        return when.reads();
    }

    @Override
    public DeadLetter apply(EventContext context) {
        try {
            if (!when.test(context.event())) {
                context.drop();
            }
            return null;
        } catch (ExpressionException e) {
            return new DeadLetter(context.record(), ReasonCode.STEP_FAILED, "filter " + e.getMessage());
        }
    }
}
