package dev.leasehold.examples;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * README.md and every page under docs/ show code only as it is in a compiled source: a fenced block
 * preceded by {@code <!-- snippet: PATH#TAG -->} must equal the region of PATH (relative to the
 * repository root) between the lines holding {@code tag::TAG[]} and {@code end::TAG[]}, dedented,
 * without the marker lines of other regions inside it. Every {@code java} and {@code sql} block must
 * carry such a marker, so no example escapes the compiler. With
 * {@code -Dleasehold.snippets.write=true} the test rewrites the blocks from their sources instead.
 * Every relative link of those pages must reach a file, and a heading of it when it names one.
 */
class DocSnippetsTest {

    private static final String MARKER = "<!-- snippet: ";
    private static final Path ROOT = Path.of(System.getProperty("leasehold.root", "..")).toAbsolutePath().normalize();
    private static final boolean WRITE = Boolean.getBoolean("leasehold.snippets.write");
    private static final Pattern LINK = Pattern.compile("\\]\\(([^)\\s]+)\\)");

    @Test
    void everyDocumentedBlockIsItsSourceRegion() throws IOException {
        List<String> problems = new ArrayList<>();
        int checked = 0;
        for (Path page : pages()) {
            List<String> lines = Files.readAllLines(page, StandardCharsets.UTF_8);
            List<String> rewritten = new ArrayList<>();
            String where = ROOT.relativize(page).toString();
            for (int i = 0; i < lines.size(); i++) {
                String line = lines.get(i);
                rewritten.add(line);
                String fence = line.strip();
                if (!fence.startsWith("```") || fence.length() == 3) {
                    continue;
                }
                int end = closingFence(lines, i);
                if (end < 0) {
                    problems.add(where + ":" + (i + 1) + ": a fenced block that never closes");
                    break;
                }
                String previous = i > 0 ? lines.get(i - 1).strip() : "";
                String language = fence.substring(3).strip();
                List<String> body = lines.subList(i + 1, end);
                if (!previous.startsWith(MARKER)) {
                    if (language.equals("java") || language.equals("sql")) {
                        problems.add(where + ":" + (i + 1) + ": a " + language + " block without a snippet marker: put "
                                + "the code in leasehold-examples (or the file it comes from) between tag::NAME[] and "
                                + "end::NAME[] lines, and write <!-- snippet: PATH#NAME --> on the line before the block");
                    }
                    rewritten.addAll(body);
                } else {
                    String reference = previous.substring(MARKER.length(), previous.length() - "-->".length()).strip();
                    List<String> expected;
                    try {
                        expected = region(reference);
                    } catch (IllegalStateException e) {
                        problems.add(where + ":" + i + ": " + e.getMessage());
                        rewritten.addAll(body);
                        i = end - 1;
                        continue;
                    }
                    String indent = line.substring(0, line.indexOf("```"));
                    List<String> indented = expected.stream().map(l -> l.isEmpty() ? l : indent + l).toList();
                    checked++;
                    if (!indented.equals(body)) {
                        problems.add(where + ":" + (i + 1) + ": the block differs from " + reference
                                + (WRITE ? " (rewritten)" : "; rerun with -Dleasehold.snippets.write=true to copy it"));
                    }
                    rewritten.addAll(indented);
                }
                i = end - 1;
            }
            if (WRITE && !rewritten.equals(lines)) {
                Files.write(page, rewritten, StandardCharsets.UTF_8);
            }
        }
        if (WRITE) {
            problems.removeIf(problem -> problem.endsWith("(rewritten)"));
        }
        assertThat(problems).as("code blocks of README.md and docs/ against their sources").isEmpty();
        assertThat(checked).as("blocks checked").isGreaterThan(20);
    }

    @Test
    void everyRelativeLinkReachesAFileAndItsHeading() throws IOException {
        List<String> problems = new ArrayList<>();
        for (Path page : pages()) {
            String text = withoutFencedBlocks(Files.readAllLines(page, StandardCharsets.UTF_8));
            Matcher link = LINK.matcher(text);
            while (link.find()) {
                String target = link.group(1);
                if (target.matches("[a-z]+:.*")) {
                    continue;
                }
                int hash = target.indexOf('#');
                String file = hash < 0 ? target : target.substring(0, hash);
                Path resolved = file.isEmpty() ? page : page.resolveSibling(file).normalize();
                if (!Files.exists(resolved)) {
                    problems.add(ROOT.relativize(page) + ": a link to " + target + ", which does not exist");
                } else if (hash >= 0 && resolved.toString().endsWith(".md")
                        && !anchors(resolved).contains(target.substring(hash + 1))) {
                    problems.add(ROOT.relativize(page) + ": a link to " + target + ", a heading " + resolved.getFileName()
                            + " does not have");
                }
            }
        }
        assertThat(problems).as("relative links of README.md and docs/").isEmpty();
    }


    private static String withoutFencedBlocks(List<String> lines) {
        StringBuilder text = new StringBuilder();
        boolean fenced = false;
        for (String line : lines) {
            if (line.strip().startsWith("```")) {
                fenced = !fenced;
            } else if (!fenced) {
                text.append(line).append('\n');
            }
        }
        return text.toString();
    }

    /** GitHub's anchors of a page's headings: lower case, punctuation but '-' dropped, spaces as '-'. */
    private static List<String> anchors(Path page) throws IOException {
        List<String> anchors = new ArrayList<>();
        boolean fenced = false;
        for (String line : Files.readAllLines(page, StandardCharsets.UTF_8)) {
            if (line.strip().startsWith("```")) {
                fenced = !fenced;
            } else if (!fenced && line.startsWith("#")) {
                String heading = line.replaceFirst("^#+\\s*", "").toLowerCase(Locale.ROOT);
                anchors.add(heading.replaceAll("[^\\p{L}\\p{N} _-]", "").replace(' ', '-'));
            }
        }
        return anchors;
    }

    private static List<Path> pages() throws IOException {
        List<Path> pages = new ArrayList<>();
        pages.add(ROOT.resolve("README.md"));
        try (Stream<Path> docs = Files.walk(ROOT.resolve("docs"))) {
            docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(pages::add);
        }
        return pages;
    }

    private static int closingFence(List<String> lines, int open) {
        for (int j = open + 1; j < lines.size(); j++) {
            if (lines.get(j).strip().equals("```")) {
                return j;
            }
        }
        return -1;
    }

    /** The lines of {@code PATH#TAG}, dedented, without nested markers. */
    static List<String> region(String reference) throws IOException {
        int hash = reference.lastIndexOf('#');
        if (hash < 0) {
            throw new IllegalStateException("snippet '" + reference + "' names no region: write PATH#NAME");
        }
        Path source = ROOT.resolve(reference.substring(0, hash));
        String tag = reference.substring(hash + 1);
        if (!Files.isRegularFile(source)) {
            throw new IllegalStateException("snippet '" + reference + "': no file " + source);
        }
        List<String> lines = Files.readAllLines(source, StandardCharsets.UTF_8);
        int start = -1;
        int stop = -1;
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).contains("tag::" + tag + "[]")) {
                if (start >= 0) {
                    throw new IllegalStateException("snippet '" + reference + "': tag::" + tag + "[] appears twice");
                }
                start = i;
            } else if (lines.get(i).contains("end::" + tag + "[]") && start >= 0 && stop < 0) {
                stop = i;
            }
        }
        if (start < 0 || stop < 0) {
            throw new IllegalStateException("snippet '" + reference + "': no region between tag::" + tag
                    + "[] and end::" + tag + "[] in " + source.getFileName());
        }
        List<String> body = lines.subList(start + 1, stop).stream()
                .filter(l -> !l.contains("tag::") && !l.contains("end::"))
                .map(String::stripTrailing).toList();
        int margin = body.stream().filter(l -> !l.isBlank())
                .mapToInt(l -> l.length() - l.stripLeading().length()).min().orElse(0);
        return body.stream().map(l -> l.isBlank() ? "" : l.substring(margin)).toList();
    }
}
