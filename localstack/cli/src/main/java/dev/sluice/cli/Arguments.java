package dev.sluice.cli;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** {@code --name value} options of one subcommand; unknown or repeated options are usage errors. */
final class Arguments {

    private final String command;
    private final Map<String, String> values = new HashMap<>();

    Arguments(String command, List<String> args, Set<String> known, Set<String> flags) {
        this.command = command;
        for (int i = 0; i < args.size(); i++) {
            String arg = args.get(i);
            if (!arg.startsWith("--")) {
                throw new UsageException("'" + command + "' takes no argument '" + arg + "'");
            }
            String name = arg.substring(2);
            String value = null;
            int eq = name.indexOf('=');
            if (eq >= 0) {
                value = name.substring(eq + 1);
                name = name.substring(0, eq);
            }
            if (!known.contains(name) && !flags.contains(name)) {
                throw new UsageException("unknown option --" + name + " for '" + command + "'");
            }
            if (flags.contains(name)) {
                value = value == null ? "true" : value;
            } else if (value == null) {
                if (i + 1 >= args.size() || args.get(i + 1).startsWith("--")) {
                    throw new UsageException("option --" + name + " needs a value");
                }
                value = args.get(++i);
            }
            if (values.put(name, value) != null) {
                throw new UsageException("option --" + name + " given twice");
            }
        }
    }

    String get(String name) {
        return values.get(name);
    }

    String get(String name, String otherwise) {
        return values.getOrDefault(name, otherwise);
    }

    int positiveInt(String name, int otherwise) {
        return positiveInt(name, otherwise, Integer.MAX_VALUE);
    }

    /** A whole number from 1 to {@code max}. */
    int positiveInt(String name, int otherwise, int max) {
        String value = values.get(name);
        if (value == null) {
            return otherwise;
        }
        long asLong;
        try {
            asLong = Long.parseLong(value.replace("_", "").replace(",", ""));
        } catch (NumberFormatException e) {
            asLong = 0;
        }
        if (asLong > max && max < Integer.MAX_VALUE) {
            throw new UsageException(String.format(
                    java.util.Locale.ROOT, "option --%s must be at most %,d, got '%s'", name, max, value));
        }
        try {
            int n = Integer.parseInt(value.replace("_", "").replace(",", ""));
            if (n <= 0) {
                throw new NumberFormatException();
            }
            return n;
        } catch (NumberFormatException e) {
            throw new UsageException("option --" + name + " must be a positive whole number, got '" + value + "'");
        }
    }

    /** A whole number from 0 to {@code max}. */
    int wholeNumber(String name, int otherwise, int max) {
        String value = values.get(name);
        if (value == null) {
            return otherwise;
        }
        try {
            int n = Integer.parseInt(value.replace("_", "").replace(",", ""));
            if (n < 0 || n > max) {
                throw new NumberFormatException();
            }
            return n;
        } catch (NumberFormatException e) {
            throw new UsageException(String.format(
                    java.util.Locale.ROOT,
                    "option --%s must be a whole number from 0 to %,d, got '%s'",
                    name,
                    max,
                    value));
        }
    }

    long longValue(String name, long otherwise) {
        String value = values.get(name);
        if (value == null) {
            return otherwise;
        }
        try {
            return Long.parseLong(value);
        } catch (NumberFormatException e) {
            throw new UsageException("option --" + name + " must be a whole number, got '" + value + "'");
        }
    }

    long positiveLong(String name, long otherwise) {
        String value = values.get(name);
        if (value == null) {
            return otherwise;
        }
        try {
            long n = Long.parseLong(value.replace("_", "").replace(",", ""));
            if (n <= 0) {
                throw new NumberFormatException();
            }
            return n;
        } catch (NumberFormatException e) {
            throw new UsageException("option --" + name + " must be a positive whole number, got '" + value + "'");
        }
    }

    /** A decimal number above zero ({@code positive}) or of zero or more. */
    double number(String name, double otherwise, boolean positive) {
        String value = values.get(name);
        if (value == null) {
            return otherwise;
        }
        try {
            double n = Double.parseDouble(value.replace("_", "").replace(",", ""));
            if (!Double.isFinite(n) || n < 0 || (positive && n == 0)) {
                throw new NumberFormatException();
            }
            return n;
        } catch (NumberFormatException e) {
            throw new UsageException("option --" + name + " must be a number " + (positive ? "above 0" : "of 0 or more")
                    + ", got '" + value + "'");
        }
    }
}
