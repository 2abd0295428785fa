package dev.leasehold;

import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

import javax.xml.parsers.DocumentBuilderFactory;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** leasehold-bom manages every published module of the build (not the examples), at the build's version. */
class BomTest {

    private static final Path ROOT = Path.of("..");

    @Test
    void theBomListsEveryLibraryModuleAtTheParentsVersion() throws Exception {
        Document parent = parse(ROOT.resolve("pom.xml"));
        Document bom = parse(ROOT.resolve("leasehold-bom/pom.xml"));
        assertThat(childText(bom.getDocumentElement(), "version"))
                .as("leasehold-bom has no parent: its version must be kept equal to leasehold-parent's")
                .isEqualTo(childText(parent.getDocumentElement(), "version"));

        List<String> modules = new ArrayList<>();
        Element modulesElement = (Element) parent.getDocumentElement().getElementsByTagName("modules").item(0);
        NodeList moduleNodes = modulesElement.getElementsByTagName("module");
        for (int i = 0; i < moduleNodes.getLength(); i++) {
            String module = moduleNodes.item(i).getTextContent().trim();
            if (published(module)) {
                modules.add(module);
            }
        }
        modules.remove("leasehold-bom");

        List<String> managed = new ArrayList<>();
        NodeList artifactIds = bom.getElementsByTagName("artifactId");
        for (int i = 0; i < artifactIds.getLength(); i++) {
            if (artifactIds.item(i).getParentNode().getNodeName().equals("dependency")) {
                managed.add(artifactIds.item(i).getTextContent().trim());
            }
        }
        assertThat(managed).containsExactlyInAnyOrderElementsOf(modules);
    }

    /** A module is published unless its pom sets {@code maven.deploy.skip} (the examples). */
    private static boolean published(String module) throws Exception {
        NodeList skips = parse(ROOT.resolve(module).resolve("pom.xml")).getElementsByTagName("maven.deploy.skip");
        return skips.getLength() == 0 || !skips.item(0).getTextContent().trim().equals("true");
    }

    private static Document parse(Path pom) throws Exception {
        return DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(pom.toFile());
    }

    private static String childText(Element element, String name) {
        NodeList children = element.getChildNodes();
        for (int i = 0; i < children.getLength(); i++) {
            if (children.item(i).getNodeName().equals(name)) {
                return children.item(i).getTextContent().trim();
            }
        }
        throw new AssertionError("no <" + name + "> in " + element.getNodeName());
    }
}
