package dev.leasehold.cli;

import dev.leasehold.LockInfo;

import java.time.Duration;
import java.util.List;
import java.util.Locale;

/** How {@code inspect} prints a {@link LockInfo}: aligned text for people, JSON for scripts. */
final class LockInfoFormat {

    private LockInfoFormat() {
    }

    static String text(LockInfo info) {
        return String.join(System.lineSeparator(),
                "lock     " + info.name(),
                "holder   " + info.holder().orElse("none (free)"),
                "ttl      " + info.remaining().map(left -> Durations.format(left) + " left").orElse("-"),
                "fence    " + (info.lastToken().isPresent() ? Long.toString(info.lastToken().getAsLong())
                        : "none (no token issued recently)"),
                "waiters  " + info.waiters());
    }

    /** {@code list}'s table: one line per lock under a header, or a note when there is none. */
    static String table(List<LockInfo> locks) {
        if (locks.isEmpty()) {
            return "no lock held";
        }
        int width = Math.max(4, locks.stream().mapToInt(info -> info.name().length()).max().orElse(0));
        String format = "%-" + width + "s  %-8s  %-10s  %-20s  %s";
        StringBuilder table = new StringBuilder(String.format(Locale.ROOT, format, "NAME", "HOLDER", "TTL", "FENCE", "WAITERS"));
        for (LockInfo info : locks) {
            table.append(System.lineSeparator()).append(String.format(Locale.ROOT, format, info.name(),
                    info.holder().orElse("-"), info.remaining().map(Durations::format).orElse("-"),
                    info.lastToken().isPresent() ? Long.toString(info.lastToken().getAsLong()) : "-", info.waiters()));
        }
        return table.toString();
    }

    /**
     * One object: {@code name}, {@code held}, {@code holder} (redacted, or null), {@code ttlMs}
     * (or null), {@code fence} (the last token, or null), {@code waiters}.
     */
    static String json(LockInfo info) {
        return "{\"name\":" + string(info.name())
                + ",\"held\":" + info.isHeld()
                + ",\"holder\":" + info.holder().map(LockInfoFormat::string).orElse("null")
                + ",\"ttlMs\":" + info.remaining().map(Duration::toMillis).map(String::valueOf).orElse("null")
                + ",\"fence\":" + (info.lastToken().isPresent() ? Long.toString(info.lastToken().getAsLong()) : "null")
                + ",\"waiters\":" + info.waiters() + "}";
    }

    /** A JSON string; everything outside printable ASCII is escaped, so any output encoding carries it. */
    private static String string(String value) {
        StringBuilder json = new StringBuilder("\"");
        for (char c : value.toCharArray()) {
            if (c == '"' || c == '\\') {
                json.append('\\').append(c);
            } else if (c < 0x20 || c > 0x7e) {
                json.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
            } else {
                json.append(c);
            }
        }
        return json.append('"').toString();
    }
}
