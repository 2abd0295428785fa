package dev.leasehold.testkit.contract;

import dev.leasehold.LockKind;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.support.AnnotationConsumer;
import org.junit.jupiter.params.provider.ArgumentsProvider;
import org.junit.jupiter.params.support.ParameterDeclarations;

import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;

/** The {@link LockKind}s a {@link ContractKinds} annotation names, each shown by its tag. */
final class ContractKindsProvider implements ArgumentsProvider, AnnotationConsumer<ContractKinds> {

    private List<String> tags = List.of();

    @Override
    public void accept(ContractKinds kinds) {
        tags = Arrays.asList(kinds.value());
    }

    @Override
    public Stream<? extends Arguments> provideArguments(ParameterDeclarations parameters, ExtensionContext context) {
        if (tags.isEmpty() || tags.stream().distinct().count() != tags.size()) {
            throw new IllegalArgumentException("@ContractKinds " + tags + " on " + context.getRequiredTestClass().getName()
                    + ": name each kind once, at least one");
        }
        return tags.stream().map(tag -> Arguments.of(Named.of(tag, KindLocks.kind(tag))));
    }
}
