package dev.leasehold.jdbc;

/**
 * A glob as an SQL {@code LIKE} pattern, to be bound as a parameter with {@code ESCAPE '\'}: lock
 * names are data, so a pattern never becomes SQL text. {@code *} matches any run of characters,
 * {@code ?} one character, and a backslash makes the next character literal; {@code %}, {@code _}
 * and {@code \} of the name are escaped, so they match only themselves.
 */
final class LikePattern {

    private LikePattern() {
    }

    /**
     * @throws IllegalArgumentException if {@code glob} ends in a lone backslash
     */
    static String of(String glob) {
        StringBuilder like = new StringBuilder(glob.length() + 8);
        for (int i = 0; i < glob.length(); i++) {
            char c = glob.charAt(i);
            if (c == '\\') {
                if (++i == glob.length()) {
                    throw new IllegalArgumentException("pattern '" + glob + "' ends in a lone backslash; "
                            + "write \\\\ for a literal backslash");
                }
                literal(like, glob.charAt(i));
            } else if (c == '*') {
                like.append('%');
            } else if (c == '?') {
                like.append('_');
            } else {
                literal(like, c);
            }
        }
        return like.toString();
    }

    private static void literal(StringBuilder like, char c) {
        if (c == '%' || c == '_' || c == '\\') {
            like.append('\\');
        }
        like.append(c);
    }
}
