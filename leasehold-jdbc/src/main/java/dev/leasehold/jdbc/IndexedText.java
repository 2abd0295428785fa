package dev.leasehold.jdbc;

import dev.leasehold.spi.Args;

import java.nio.charset.StandardCharsets;

/**
 * A lock name or fence resource that becomes part of a primary key: PostgreSQL refuses a btree
 * entry over 2704 bytes, and a name of {@value Args#MAX_NAME_LENGTH} characters may take up to four
 * times as many bytes in UTF-8, so the bytes are bounded too, before any SQL; and its text type
 * cannot hold NUL.
 */
final class IndexedText {

    /** The most UTF-8 bytes of a name, leaving room for the holder id beside it in the key. */
    static final int MAX_BYTES = 2048;

    private IndexedText() {
    }

    /**
     * Returns {@code name} if {@link Args#lockName} accepts it, it has no NUL character and it takes at
     * most {@value #MAX_BYTES} bytes in UTF-8.
     *
     * @throws IllegalArgumentException otherwise, saying which limit it broke
     */
    static String name(String name) {
        Args.lockName(name);
        int nul = name.indexOf('\u0000');
        if (nul >= 0) {
            throw new IllegalArgumentException("lock name has a NUL character at index " + nul + ", which PostgreSQL "
                    + "text cannot hold; encode binary ids, e.g. as hex");
        }
        if (name.length() <= MAX_BYTES / 3) {
            return name; // a UTF-16 char is at most 3 bytes in UTF-8: no need to encode it to know
        }
        int bytes = name.getBytes(StandardCharsets.UTF_8).length;
        if (bytes > MAX_BYTES) {
            throw new IllegalArgumentException("lock name must be at most " + MAX_BYTES + " bytes in UTF-8 on "
                    + "PostgreSQL (a primary key entry is limited), got " + bytes + " bytes in " + name.length()
                    + " characters; shorten it, e.g. hash its long part");
        }
        return name;
    }
}
