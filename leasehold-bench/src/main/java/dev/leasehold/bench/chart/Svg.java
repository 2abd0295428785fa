package dev.leasehold.bench.chart;

import java.util.Locale;

/**
 * Writes an SVG document: elements, escaped text and attributes, and coordinates that are checked
 * to be finite numbers, so a defect in a scale fails loudly instead of drawing garbage.
 */
final class Svg {

    private final StringBuilder out = new StringBuilder();
    private int depth;

    /** Opens the {@code <svg>} root of a {@code width} by {@code height} picture. */
    Svg(double width, double height, String title) {
        out.append("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
        open("svg", "xmlns", "http://www.w3.org/2000/svg", "width", width, "height", height,
                "viewBox", "0 0 " + number(width) + " " + number(height), "role", "img", "aria-label", title,
                "font-family", "Helvetica, Arial, sans-serif");
        element("title", title);
    }

    /** Opens an element; {@code attributes} alternate names and values (strings or numbers). */
    Svg open(String name, Object... attributes) {
        indent().append('<').append(name);
        attributes(attributes);
        out.append(">\n");
        depth++;
        return this;
    }

    Svg close(String name) {
        depth--;
        indent().append("</").append(name).append(">\n");
        return this;
    }

    /** An element without content. */
    Svg empty(String name, Object... attributes) {
        indent().append('<').append(name);
        attributes(attributes);
        out.append("/>\n");
        return this;
    }

    /** An element holding only {@code text}. */
    Svg element(String name, String text, Object... attributes) {
        indent().append('<').append(name);
        attributes(attributes);
        out.append('>').append(escape(text)).append("</").append(name).append(">\n");
        return this;
    }

    /** The finished document. */
    String finish() {
        close("svg");
        if (depth != 0) {
            throw new IllegalStateException(depth + " element(s) left open");
        }
        return out.toString();
    }

    /**
     * A coordinate as SVG reads it, to two decimals.
     *
     * @throws IllegalStateException if {@code value} is NaN or infinite: a scale was given a value
     *                               it cannot place, which the charts' input checks should have refused
     */
    static String number(double value) {
        if (!Double.isFinite(value)) {
            throw new IllegalStateException("coordinate " + value + " is not a finite number");
        }
        String text = String.format(Locale.ROOT, "%.2f", value);
        text = text.contains(".") ? text.replaceAll("0+$", "").replaceAll("\\.$", "") : text;
        return text.equals("-0") ? "0" : text;
    }

    private void attributes(Object[] attributes) {
        if (attributes.length % 2 != 0) {
            throw new IllegalArgumentException("attributes come in name-value pairs");
        }
        for (int i = 0; i < attributes.length; i += 2) {
            Object value = attributes[i + 1];
            String text = value instanceof Number number ? number(number.doubleValue()) : String.valueOf(value);
            out.append(' ').append(attributes[i]).append("=\"").append(escape(text)).append('"');
        }
    }

    private StringBuilder indent() {
        return out.append("  ".repeat(depth));
    }

    /** Escapes the five XML special characters; other characters pass as UTF-8. */
    static String escape(String text) {
        StringBuilder escaped = new StringBuilder(text.length());
        for (char c : text.toCharArray()) {
            switch (c) {
                case '&' -> escaped.append("&amp;");
                case '<' -> escaped.append("&lt;");
                case '>' -> escaped.append("&gt;");
                case '"' -> escaped.append("&quot;");
                case '\'' -> escaped.append("&apos;");
                default -> escaped.append(c);
            }
        }
        return escaped.toString();
    }
}
