package dev.leasehold.cli;

import dev.leasehold.LockInfo;
import dev.leasehold.LockKind;

import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * How {@code inspect} and {@code list} print a {@link LockInfo}, whatever backend and kind it
 * comes from: aligned text for people, a table for {@code list}, JSON for scripts. Holder ids
 * arrive redacted and are printed as they are.
 */
final class LockInfoFormat {

    private LockInfoFormat() {
    }

    static String text(LockInfo info) {
        StringBuilder text = new StringBuilder(String.join(System.lineSeparator(),
                "lock     " + info.name(),
                "kind     " + kind(info),
                "holder   " + info.holder().orElse("none (free)")));
        if (info.holders().size() > 1) {
            text.append(System.lineSeparator()).append("holders  ").append(String.join(", ", info.holders()));
        }
        text.append(System.lineSeparator()).append(String.join(System.lineSeparator(),
                "ttl      " + info.remaining().map(left -> Durations.format(left) + " left").orElse("-"),
                "fence    " + fence(info),
                "waiters  " + info.waiters()));
        info.foreign().ifPresent(foreign -> text.append(System.lineSeparator())
                .append("foreign  ").append(foreign).append(" (another program uses this name)"));
        return text.toString();
    }

    /**
     * The last token issued. A held lock without one is a backend that does not report it (so
     * "none issued" would be wrong: the holder has a token).
     */
    private static String fence(LockInfo info) {
        if (info.lastToken().isPresent()) {
            return Long.toString(info.lastToken().getAsLong());
        }
        return info.isHeld() ? "not reported by this backend" : "none (no token issued recently)";
    }

    /**
     * The kind of the current holders, with how many there are when they share the lock:
     * {@code lock}, {@code fair_lock}, {@code write}, {@code read, 3 readers},
     * {@code semaphore, 2 of 5 permits held}; {@code -} when free.
     */
    static String kind(LockInfo info) {
        if (info.kind().isEmpty()) {
            return "-";
        }
        LockKind kind = info.kind().get();
        int holders = info.holders().size();
        if (kind instanceof LockKind.Permits permits) {
            return kind.tag() + ", " + holders + " of " + permits.permits() + " permits held";
        }
        if (kind instanceof LockKind.Read) {
            return kind.tag() + ", " + holders + (holders == 1 ? " reader" : " readers");
        }
        return kind.tag();
    }

    /** The holders in a few words: the oldest one, and how many more share the lock. */
    static String holders(LockInfo info) {
        String oldest = info.holder().orElse("-");
        int more = info.holders().size() - 1;
        return more > 0 ? oldest + " and " + more + " more" : oldest;
    }

    /** {@code list}'s table: one line per lock under a header, or a note when there is none. */
    static String table(List<LockInfo> locks) {
        if (locks.isEmpty()) {
            return "no lock held";
        }
        int width = Math.max(4, locks.stream().mapToInt(info -> info.name().length()).max().orElse(0));
        String format = "%-" + width + "s  %-9s  %-8s  %-8s  %-10s  %-20s  %s";
        StringBuilder table = new StringBuilder(String.format(Locale.ROOT, format,
                "NAME", "KIND", "HOLDERS", "HOLDER", "TTL", "FENCE", "WAITERS"));
        for (LockInfo info : locks) {
            table.append(System.lineSeparator()).append(String.format(Locale.ROOT, format, info.name(),
                    info.kind().map(LockKind::tag).orElse("-"), holderCount(info), info.holder().orElse("-"),
                    info.remaining().map(Durations::format).orElse("-"),
                    info.lastToken().isPresent() ? Long.toString(info.lastToken().getAsLong()) : "-", info.waiters()));
        }
        return table.toString();
    }

    private static String holderCount(LockInfo info) {
        return info.kind().orElse(null) instanceof LockKind.Permits permits
                ? info.holders().size() + "/" + permits.permits() : Integer.toString(info.holders().size());
    }

    /**
     * One object: {@code name}, {@code held}, {@code holder} (the oldest, redacted, or null),
     * {@code ttlMs} (or null), {@code kind} (its tag, or null when free), {@code permits} (a
     * semaphore's number of permits, else null), {@code holders} (every holder, redacted, oldest
     * first), {@code foreign} (what another program keeps under the name, or null), {@code fence}
     * (the last token, or null), {@code waiters}.
     */
    static String json(LockInfo info) {
        return "{\"name\":" + string(info.name())
                + ",\"held\":" + info.isHeld()
                + ",\"holder\":" + info.holder().map(LockInfoFormat::string).orElse("null")
                + ",\"ttlMs\":" + info.remaining().map(Duration::toMillis).map(String::valueOf).orElse("null")
                + ",\"kind\":" + info.kind().map(kind -> string(kind.tag())).orElse("null")
                + ",\"permits\":" + (info.kind().orElse(null) instanceof LockKind.Permits permits
                        ? Integer.toString(permits.permits()) : "null")
                + ",\"holders\":" + info.holders().stream().map(LockInfoFormat::string)
                        .collect(Collectors.joining(",", "[", "]"))
                + ",\"foreign\":" + info.foreign().map(LockInfoFormat::string).orElse("null")
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
