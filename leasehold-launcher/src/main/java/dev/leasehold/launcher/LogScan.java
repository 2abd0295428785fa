package dev.leasehold.launcher;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The build's check that no test run logged a secret: scans a module's test log for every password
 * its test servers were started with ({@link TestSecrets}) and for full holder ids (the engine's
 * 22-character random prefix, a colon and a counter; only the 6-character redacted form may be
 * logged). Run after the tests: {@code java dev.leasehold.launcher.LogScan LOG SECRETS}.
 */
public final class LogScan {

    /**
     * A full holder id: 22 base64url characters (128 random bits, so both letter cases occur) then
     * {@code :} and a base-36 counter.
     */
    public static final Pattern HOLDER_ID = Pattern.compile(
            "(?<![A-Za-z0-9_-])(?=[A-Za-z0-9_-]{0,21}[A-Z])(?=[A-Za-z0-9_-]{0,21}[a-z])[A-Za-z0-9_-]{22}:[0-9a-z]{1,13}(?![0-9a-z])");

    private LogScan() {
    }

    /**
     * Exits 1, naming each offending line, if the log holds a secret or a full holder id; 0
     * otherwise. A log that does not exist (no test ran) passes.
     */
    public static void main(String[] args) throws IOException {
        if (args.length != 2) {
            throw new IllegalArgumentException("usage: LogScan LOG_FILE SECRETS_FILE");
        }
        List<String> findings = scan(Path.of(args[0]), Path.of(args[1]));
        if (!findings.isEmpty()) {
            findings.forEach(System.err::println);
            throw new IllegalStateException(findings.size() + " log line(s) in " + args[0]
                    + " show a password or a full holder id; log the redacted form (HolderIds.redact) instead");
        }
        System.out.println("LogScan: " + args[0] + " shows no password and no full holder id");
    }

    /**
     * Every line of {@code log} that contains a secret listed in {@code secrets} (one per line) or
     * a full holder id, described without repeating the secret itself.
     */
    static List<String> scan(Path log, Path secretsFile) throws IOException {
        if (!Files.exists(log)) {
            return List.of();
        }
        Set<String> secrets = new LinkedHashSet<>();
        if (Files.exists(secretsFile)) {
            for (String secret : Files.readAllLines(secretsFile, StandardCharsets.UTF_8)) {
                if (!secret.isBlank()) {
                    secrets.add(secret);
                }
            }
        }
        // Delimited, so a short password ("pw") is found as a word or in a URI, not inside other words.
        List<Pattern> patterns = secrets.stream()
                .map(secret -> Pattern.compile("(?<![A-Za-z0-9])" + Pattern.quote(secret) + "(?![A-Za-z0-9])"))
                .toList();
        List<String> findings = new ArrayList<>();
        List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i);
            String redacted = line;
            for (Pattern secret : patterns) {
                redacted = secret.matcher(redacted).replaceAll("<password>");
            }
            if (!redacted.equals(line)) {
                findings.add(log + ":" + (i + 1) + ": a test server's password appears: " + redacted);
            }
            Matcher holder = HOLDER_ID.matcher(line);
            if (holder.find()) {
                findings.add(log + ":" + (i + 1) + ": a full holder id appears: "
                        + line.replace(holder.group(), holder.group().substring(0, 6) + "<redacted>"));
            }
        }
        return findings;
    }
}
