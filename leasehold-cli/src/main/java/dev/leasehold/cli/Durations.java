package dev.leasehold.cli;

import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

import java.time.Duration;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Durations as people type them on a command line ({@code 500ms}, {@code 30s}, {@code 2m},
 * {@code 1h}, a bare {@code 0}) and as the command prints them.
 */
final class Durations {

    private static final Pattern FORM = Pattern.compile("(\\d{1,15})(ms|s|m|h)");
    private static final String EXPECTED = "use a whole number and a unit: 500ms, 30s, 2m or 1h (or 0)";

    private Durations() {
    }

    /**
     * Parses a duration.
     *
     * @throws IllegalArgumentException naming the text and the accepted forms
     */
    static Duration parse(String text) {
        String trimmed = text == null ? "" : text.strip().toLowerCase(Locale.ROOT);
        if (trimmed.equals("0")) {
            return Duration.ZERO;
        }
        Matcher matcher = FORM.matcher(trimmed);
        if (!matcher.matches()) {
            throw new IllegalArgumentException("'" + text + "' is not a duration; " + EXPECTED);
        }
        long amount = Long.parseLong(matcher.group(1));
        return switch (matcher.group(2)) {
            case "ms" -> Duration.ofMillis(amount);
            case "s" -> Duration.ofSeconds(amount);
            case "m" -> Duration.ofMinutes(amount);
            default -> Duration.ofHours(amount);
        };
    }

    /** Short and readable: {@code 850ms}, {@code 30s}, {@code 12.3s}, {@code 2m}, {@code 2m05s}, {@code 24h}. */
    static String format(Duration duration) {
        long millis = Math.max(0, duration.toMillis());
        if (millis < 1_000) {
            return millis + "ms";
        }
        if (millis < 60_000) {
            return millis % 1000 == 0 ? millis / 1000 + "s" : String.format(Locale.ROOT, "%.1fs", millis / 1000.0);
        }
        long seconds = millis / 1000;
        if (seconds < 3600) {
            return seconds % 60 == 0 ? seconds / 60 + "m" : String.format(Locale.ROOT, "%dm%02ds", seconds / 60, seconds % 60);
        }
        long minutes = seconds / 60;
        return minutes % 60 == 0 ? minutes / 60 + "h" : String.format(Locale.ROOT, "%dh%02dm", minutes / 60, minutes % 60);
    }

    /** Lets picocli parse {@link Duration} options; a bad value becomes a usage error naming the option. */
    static final class Converter implements ITypeConverter<Duration> {
        @Override
        public Duration convert(String value) {
            try {
                return parse(value);
            } catch (IllegalArgumentException e) {
                throw new TypeConversionException(e.getMessage());
            }
        }
    }
}
