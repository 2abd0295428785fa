package dev.leasehold.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * One line of {@code MONITOR} output, e.g.
 * {@code 1700000000.123456 [0 127.0.0.1:5000] "evalsha" "ab12..." "1" "lock-1"}, or
 * {@code 1700000000.123500 [0 lua] "publish" "{lock-1}:released" "w1"} for a command a script ran.
 *
 * @param source  who sent it: the client's address ({@code 127.0.0.1:5000}), or {@code lua}
 * @param command the command name, lower case
 * @param args    the arguments after the name, as the server printed them (escapes such as
 *                {@code \n} and {@code \"} undone; {@code \xHH} kept as written, which is enough
 *                to tell scripts and channels apart)
 */
record MonitorLine(String source, String command, List<String> args) {

    /** Whether a script ran this command ({@code redis.call}), rather than a client sending it. */
    boolean fromScript() {
        return source.equals("lua");
    }

    /** The first argument, or "" when there is none. */
    String firstArg() {
        return args.isEmpty() ? "" : args.get(0);
    }

    /**
     * Parses one line.
     *
     * @throws IllegalArgumentException if the line is not a {@code MONITOR} line (e.g. the
     *                                  {@code OK} that answers {@code MONITOR} itself)
     */
    static MonitorLine parse(String line) {
        int open = line.indexOf(" [");
        int close = line.indexOf("] \"", open);
        if (open < 0 || close < 0) {
            throw new IllegalArgumentException("not a MONITOR line: " + line);
        }
        String where = line.substring(open + 2, close);
        String source = where.substring(where.indexOf(' ') + 1);
        List<String> words = quoted(line, close + 2);
        if (words.isEmpty()) {
            throw new IllegalArgumentException("MONITOR line without a command: " + line);
        }
        return new MonitorLine(source, words.get(0).toLowerCase(Locale.ROOT), List.copyOf(words.subList(1, words.size())));
    }

    /** The double-quoted words of {@code line} from {@code from} on, their escapes undone. */
    private static List<String> quoted(String line, int from) {
        List<String> words = new ArrayList<>();
        StringBuilder word = null;
        for (int i = from; i < line.length(); i++) {
            char c = line.charAt(i);
            if (word == null) {
                if (c == '"') {
                    word = new StringBuilder();
                }
            } else if (c == '\\' && i + 1 < line.length()) {
                char next = line.charAt(++i);
                switch (next) {
                    case 'n' -> word.append('\n');
                    case 'r' -> word.append('\r');
                    case 't' -> word.append('\t');
                    case '"', '\\' -> word.append(next);
                    default -> word.append('\\').append(next);
                }
            } else if (c == '"') {
                words.add(word.toString());
                word = null;
            } else {
                word.append(c);
            }
        }
        return words;
    }
}
