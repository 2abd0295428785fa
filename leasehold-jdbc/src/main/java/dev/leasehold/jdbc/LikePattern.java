package dev.leasehold.jdbc;

/**
 * A {@link dev.leasehold.spi.Glob} as an SQL {@code LIKE} pattern that matches every name the glob
 * matches, to be bound as a parameter with {@code ESCAPE '\'}: lock names are data, so a pattern
 * never becomes SQL text. {@code *} becomes {@code %}, {@code ?} and a whole {@code [set]} become
 * {@code _} (one character; the glob then filters the rows exactly), a backslash makes the next
 * character literal (a trailing one is itself), and {@code %}, {@code _} and {@code \} of the name
 * are escaped, so they match only themselves.
 */
final class LikePattern {

    private LikePattern() {
    }

    /** {@code glob}, already checked by {@link dev.leasehold.spi.Glob#of}, as a LIKE pattern. */
    static String of(String glob) {
        StringBuilder like = new StringBuilder(glob.length() + 8);
        for (int i = 0; i < glob.length(); i++) {
            char c = glob.charAt(i);
            if (c == '\\') {
                literal(like, i + 1 < glob.length() ? glob.charAt(++i) : c);
            } else if (c == '*') {
                like.append('%');
            } else if (c == '?') {
                like.append('_');
            } else if (c == '[') {
                i = closing(glob, i);
                like.append('_');
            } else {
                literal(like, c);
            }
        }
        return like.toString();
    }

    /** The index of the {@code ]} closing the set opened at {@code open}; Glob made sure there is one. */
    private static int closing(String glob, int open) {
        int i = open + 1;
        if (i < glob.length() && glob.charAt(i) == '^') {
            i++;
        }
        for (; i < glob.length(); i++) {
            char c = glob.charAt(i);
            if (c == ']') {
                return i;
            }
            if (c == '\\') {
                i++;
            }
        }
        return glob.length() - 1;
    }

    private static void literal(StringBuilder like, char c) {
        if (c == '%' || c == '_' || c == '\\') {
            like.append('\\');
        }
        like.append(c);
    }
}
