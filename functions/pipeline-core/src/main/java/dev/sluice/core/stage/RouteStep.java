package dev.sluice.core.stage;

import dev.sluice.core.event.DeadLetter;
import dev.sluice.core.event.ReasonCode;
import dev.sluice.core.expr.ExpressionException;
import dev.sluice.core.expr.Predicate;
import java.util.ArrayList;
import java.util.List;

/** Chooses an event's sinks: the first rule whose expression is true, else {@code otherwise}. */
final class RouteStep implements Step {

    /** One rule: when the expression holds, the event goes to these sinks. */
    record Rule(Predicate when, List<String> to) {}

    private final List<Rule> rules;
    private final List<String> otherwise;

    RouteStep(List<Rule> rules, List<String> otherwise) {
        this.rules = List.copyOf(rules);
        this.otherwise = List.copyOf(otherwise);
    }

    @Override
    public boolean keepsBytes() {
        return true; // reads the event only
    }

    @Override
    public List<List<String>> reads() {
        List<List<String>> reads = new ArrayList<>();
        for (Rule rule : rules) {
            reads.addAll(rule.when().reads());
        }
        return reads;
    }

    @Override
    public DeadLetter apply(EventContext context) {
        try {
            for (Rule rule : rules) {
                if (rule.when().test(context.event())) {
                    context.routeTo(rule.to());
                    return null;
                }
            }
            context.routeTo(otherwise);
            return null;
        } catch (ExpressionException e) {
            return new DeadLetter(context.record(), ReasonCode.STEP_FAILED, "route " + e.getMessage());
        }
    }
}
