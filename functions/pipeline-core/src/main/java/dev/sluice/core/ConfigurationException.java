package dev.sluice.core;

/**
 * A setting is missing or bad: an environment variable a stage needs, a pipeline definition, an
 * expression that does not compile. Fatal for the process that reads it; no retry repairs it. The
 * message names the setting and the problem in one line.
 */
public class ConfigurationException extends SluiceException {

    private static final long serialVersionUID = 1L;

    public ConfigurationException(String message) {
        super(message);
    }

    public ConfigurationException(String message, Throwable cause) {
        super(message, cause);
    }
}
