package dev.leasehold.spi;

import java.util.regex.Pattern;

/**
 * A glob over lock names, as {@link Inspector#list(String)} takes it, with Redis's {@code SCAN MATCH}
 * syntax so that one pattern means the same on every backend: {@code *} any run of characters,
 * {@code ?} one character, {@code [abc]}, {@code [a-z]} and {@code [^a]} one character of (or not of)
 * a set, {@code \} the next character literally. For a backend that enumerates its names and
 * filters them itself.
 */
public final class Glob {

    private final Pattern regex;

    private Glob(Pattern regex) {
        this.regex = regex;
    }

    /**
     * The glob {@code pattern}.
     *
     * @throws IllegalArgumentException if the pattern is null or empty, or a {@code [} is never closed
     */
    public static Glob of(String pattern) {
        Args.pattern(pattern);
        StringBuilder regex = new StringBuilder();
        for (int i = 0; i < pattern.length(); i++) {
            char c = pattern.charAt(i);
            switch (c) {
                case '*' -> regex.append(".*");
                case '?' -> regex.append('.');
                case '\\' -> {
                    if (i + 1 < pattern.length()) {
                        regex.append(Pattern.quote(String.valueOf(pattern.charAt(++i))));
                    } else {
                        regex.append(Pattern.quote("\\"));
                    }
                }
                case '[' -> i = set(pattern, i, regex);
                default -> regex.append(Pattern.quote(String.valueOf(c)));
            }
        }
        return new Glob(Pattern.compile(regex.toString(), Pattern.DOTALL));
    }

    /** Appends the set opened at {@code open} as a regex class; returns the index of its {@code ]}. */
    private static int set(String pattern, int open, StringBuilder regex) {
        int i = open + 1;
        regex.append('[');
        if (i < pattern.length() && pattern.charAt(i) == '^') {
            regex.append('^');
            i++;
        }
        for (; i < pattern.length(); i++) {
            char c = pattern.charAt(i);
            if (c == ']') {
                regex.append(']');
                return i;
            }
            if (c == '\\' && i + 1 < pattern.length()) {
                c = pattern.charAt(++i);
            } else if (c == '-' && i > open + 1 && i + 1 < pattern.length() && pattern.charAt(i + 1) != ']') {
                regex.append('-');
                continue;
            }
            regex.append(Character.isLetterOrDigit(c) ? String.valueOf(c) : "\\" + c);
        }
        throw new IllegalArgumentException("pattern '" + pattern + "' opens a set with '[' at " + open
                + " that is never closed; close it with ']' or write \\[ for a literal bracket");
    }

    /** Whether the whole of {@code name} matches. */
    public boolean matches(String name) {
        return regex.matcher(name).matches();
    }
}
