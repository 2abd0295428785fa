package dev.leasehold.cli;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;

/**
 * Reads the Redis URI of {@code --redis-file}: the first non-blank line of a regular file of at most
 * {@value #MAX_BYTES} bytes of UTF-8 text, stripped, without a leading byte order mark. Anything else
 * is refused with a {@link Refused} that says what is wrong with the file and never holds its content
 * (it holds a password).
 */
final class UriFile {

    /** Far above any URI (one line), low enough that a wrong file cannot fill the heap. */
    static final int MAX_BYTES = 64 * 1024;

    private static final char BYTE_ORDER_MARK = '\uFEFF';

    /** Why the file gives no URI, as the end of a sentence that starts with the file's name. */
    static final class Refused extends Exception {
        Refused(String problem) {
            super(problem, null, false, false);
        }
    }

    private UriFile() {
    }

    /** The file's first non-blank line, stripped. */
    static String firstLine(Path file) throws Refused {
        String text = decode(read(file));
        if (!text.isEmpty() && text.charAt(0) == BYTE_ORDER_MARK) {
            text = text.substring(1); // Windows editors save UTF-8 with one
        }
        return text.lines().map(String::strip).filter(line -> !line.isEmpty()).findFirst()
                .orElseThrow(() -> new Refused("is empty; it must hold the URI, e.g. redis://:password@host:6379"));
    }

    private static byte[] read(Path file) throws Refused {
        try {
            // Checked before opening: opening a named pipe blocks until a writer comes, and a device may never end.
            BasicFileAttributes attributes = Files.readAttributes(file, BasicFileAttributes.class);
            if (attributes.isDirectory()) {
                throw new Refused("is a directory; give the file in it that holds the URI");
            }
            if (!attributes.isRegularFile()) {
                throw new Refused("is not a regular file (a named pipe, a device or a socket); give a file that "
                        + "holds the URI, or the URI in $" + RedisOption.ENV_VAR);
            }
            if (attributes.size() > MAX_BYTES) {
                throw tooLarge();
            }
            try (InputStream in = Files.newInputStream(file)) {
                byte[] bytes = in.readNBytes(MAX_BYTES + 1); // the file may have grown since
                if (bytes.length > MAX_BYTES) {
                    throw tooLarge();
                }
                return bytes;
            }
        } catch (NoSuchFileException e) {
            throw new Refused("does not exist");
        } catch (AccessDeniedException e) {
            throw new Refused("cannot be read (permission denied); check its permissions");
        } catch (FileSystemException e) {
            throw new Refused("cannot be read (" + (e.getReason() != null ? e.getReason() : e.getClass().getSimpleName()) + ")");
        } catch (IOException e) {
            throw new Refused("cannot be read (" + e.getClass().getSimpleName() + ")");
        }
    }

    private static Refused tooLarge() {
        return new Refused("is larger than " + MAX_BYTES / 1024 + " KiB; it must hold the URI alone, on its first line");
    }

    private static String decode(byte[] bytes) throws Refused {
        String text;
        try {
            text = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes)).toString();
        } catch (CharacterCodingException e) {
            throw notUtf8();
        }
        if (text.indexOf('\0') >= 0) {
            throw notUtf8(); // UTF-16 without a byte order mark decodes as UTF-8 with a NUL every other byte
        }
        return text;
    }

    private static Refused notUtf8() {
        return new Refused("is not UTF-8 text (UTF-16, as some Windows editors save, or Latin-1?); save it as UTF-8");
    }
}
