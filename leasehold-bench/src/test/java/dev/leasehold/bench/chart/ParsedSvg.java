package dev.leasehold.bench.chart;

import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NamedNodeMap;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;
import org.xml.sax.InputSource;

import javax.xml.XMLConstants;
import javax.xml.parsers.DocumentBuilderFactory;
import java.io.StringReader;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A chart parsed with the JDK's XML parser (which fails on anything that is not well-formed XML),
 * with the look-ups the tests need.
 */
public final class ParsedSvg {

    private static final Pattern NUMBER = Pattern.compile("-?[0-9]+(\\.[0-9]+)?");

    private final Document document;

    private ParsedSvg(Document document) {
        this.document = document;
    }

    /** Parses {@code svg}, namespace-aware, with no DTD or external entity allowed. */
    public static ParsedSvg parse(String svg) throws Exception {
        DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
        factory.setNamespaceAware(true);
        factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
        factory.setAttribute(XMLConstants.ACCESS_EXTERNAL_DTD, "");
        factory.setAttribute(XMLConstants.ACCESS_EXTERNAL_SCHEMA, "");
        return new ParsedSvg(factory.newDocumentBuilder().parse(new InputSource(new StringReader(svg))));
    }

    public Element root() {
        return document.getDocumentElement();
    }

    /** Every element named {@code name}, in document order. */
    public List<Element> elements(String name) {
        NodeList nodes = document.getElementsByTagNameNS("http://www.w3.org/2000/svg", name);
        List<Element> elements = new ArrayList<>();
        for (int i = 0; i < nodes.getLength(); i++) {
            elements.add((Element) nodes.item(i));
        }
        return elements;
    }

    /** Every element with {@code class="name"}. */
    public List<Element> classed(String name) {
        List<Element> found = new ArrayList<>();
        collect(root(), name, found);
        return found;
    }

    /** The text of every {@code <text>} element. */
    public List<String> texts() {
        return elements("text").stream().map(Node::getTextContent).toList();
    }

    /** Every number in every attribute, as written. */
    public List<String> numbersInAttributes() {
        List<String> numbers = new ArrayList<>();
        for (Element element : elements("*")) {
            NamedNodeMap attributes = element.getAttributes();
            for (int i = 0; i < attributes.getLength(); i++) {
                Matcher matcher = NUMBER.matcher(attributes.item(i).getNodeValue());
                while (matcher.find()) {
                    numbers.add(matcher.group());
                }
            }
        }
        return numbers;
    }

    /** A polyline's points as (x, y) pairs. */
    public static List<double[]> points(Element polyline) {
        List<double[]> points = new ArrayList<>();
        for (String pair : polyline.getAttribute("points").trim().split("\\s+")) {
            String[] xy = pair.split(",");
            points.add(new double[] {Double.parseDouble(xy[0]), Double.parseDouble(xy[1])});
        }
        return points;
    }

    public static double number(Element element, String attribute) {
        return Double.parseDouble(element.getAttribute(attribute));
    }

    private static void collect(Element element, String name, List<Element> found) {
        if (element.getAttribute("class").equals(name)) {
            found.add(element);
        }
        NodeList children = element.getChildNodes();
        for (int i = 0; i < children.getLength(); i++) {
            if (children.item(i) instanceof Element child) {
                collect(child, name, found);
            }
        }
    }
}
