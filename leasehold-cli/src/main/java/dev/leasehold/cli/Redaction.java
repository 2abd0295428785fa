package dev.leasehold.cli;

import java.util.regex.Pattern;

/**
 * The last filter before text reaches the terminal: removes the {@code user:password@} part of
 * any {@code redis://} or {@code rediss://} URI, Sentinel and Cluster forms included. The library
 * already describes servers without credentials; this catches whatever a third-party error
 * message might still echo. The placeholders of a usage template ({@code [user:password@]},
 * {@code [password@]}) are left as they are.
 */
final class Redaction {

    private static final Pattern CREDENTIALS = Pattern.compile(
            "(?i)(rediss?(?:-sentinel|-cluster)?://)(?!\\[(?:user:)?password@])[^@/\\s]*@");

    private Redaction() {
    }

    static String credentialsRemoved(String text) {
        return text == null ? "" : CREDENTIALS.matcher(text).replaceAll("$1");
    }
}
