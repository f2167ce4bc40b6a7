package dev.sluice.core.definition;

import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.JsonParser;
import dev.sluice.core.ConfigurationException;
import java.util.TreeSet;

/**
 * A pipeline definition that cannot be used. The message is one line naming the file, the line,
 * the field and the problem: {@code pipelines/payments.yaml:31: stages.validate.batching.batchSize:
 * must be positive, got 0}.
 */
public final class DefinitionException extends ConfigurationException {

    private static final long serialVersionUID = 1L;

    private final String file;
    private final int line;
    private final String field;
    private final String problem;

    public DefinitionException(String file, int line, String field, String problem) {
        super(format(file, line, field, problem));
        this.file = file;
        this.line = line;
        this.field = field;
        this.problem = problem;
    }

    /** The definition file, as given to the loader. */
    public String file() {
        return file;
    }

    /** The 1-based line of the offending field, or 0 if unknown. */
    public int line() {
        return line;
    }

    /** The field, as a dotted path ({@code stages.validate.sinks[1].table}); empty for the file. */
    public String field() {
        return field;
    }

    /** What is wrong, without location. */
    public String problem() {
        return problem;
    }

    private static String format(String file, int line, String field, String problem) {
        StringBuilder message = new StringBuilder(file);
        if (line > 0) {
            message.append(':').append(line);
        }
        message.append(": ");
        if (field != null && !field.isEmpty()) {
            message.append(field).append(": ");
        }
        // one line whatever the problem's source text holds
        return message.append(problem == null ? "" : problem.strip().replaceAll("\\s*[\\r\\n]+\\s*", " "))
                .toString();
    }

    static JsonParseException unknownOption(JsonParser parser, StepType type, String option) {
        return new JsonParseException(
                parser,
                "unknown option '" + option + "' of step '" + type.yamlName() + "' (known: "
                        + new TreeSet<>(type.options()) + ")");
    }
}
