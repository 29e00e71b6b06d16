package dev.skillgate.protocol.internal;

import com.networknt.schema.Error;
import com.networknt.schema.ExecutionContext;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaContext;
import com.networknt.schema.SchemaLocation;
import com.networknt.schema.keyword.BaseKeywordValidator;
import com.networknt.schema.keyword.Keyword;
import com.networknt.schema.keyword.KeywordValidator;
import com.networknt.schema.path.NodePath;
import java.util.ArrayList;
import java.util.List;
import tools.jackson.databind.JsonNode;

/**
 * {@code anyOf} for the subset: each branch is validated by networknt, in order, until one
 * matches; if none does, exactly one error is added at the {@code anyOf}'s own instance location.
 *
 * <p>Why not networknt's own {@code AnyOfValidator}: it keeps every error of every failed branch,
 * and nested {@code anyOf}s multiply that per instance, so a 20 KB schema (a four-way {@code anyOf}
 * tree five levels deep, well inside the gate's node bound) over a 4,000-element array exhausted a
 * 1 GiB heap. SPEC §6 reports one issue per failed {@code anyOf} anyway, so branch errors are
 * discarded as soon as the branch is decided; memory per evaluation is bounded by the schema size.
 * The verdict is the same as networknt's (checked against stock networknt by the suite harness
 * and the fuzz differential).
 */
final class BoundedAnyOf implements Keyword {
    static final BoundedAnyOf INSTANCE = new BoundedAnyOf();

    private BoundedAnyOf() {}

    @Override
    public String getValue() {
        return "anyOf";
    }

    @Override
    public KeywordValidator newValidator(
            SchemaLocation schemaLocation, JsonNode schemaNode, Schema parentSchema, SchemaContext schemaContext) {
        return new Validator(this, schemaLocation, schemaNode, parentSchema, schemaContext);
    }

    private static final class Validator extends BaseKeywordValidator {
        private final List<Schema> branches;

        Validator(
                Keyword keyword,
                SchemaLocation schemaLocation,
                JsonNode schemaNode,
                Schema parentSchema,
                SchemaContext schemaContext) {
            super(keyword, schemaNode, schemaLocation, parentSchema, schemaContext);
            if (!schemaNode.isArray()) {
                throw new IllegalArgumentException("anyOf must be an array (the gate checks this first)");
            }
            List<Schema> list = new ArrayList<>(schemaNode.size());
            for (int i = 0; i < schemaNode.size(); i++) {
                list.add(schemaContext.newSchema(schemaLocation.append(i), schemaNode.get(i), parentSchema));
            }
            this.branches = List.copyOf(list);
        }

        @Override
        public void validate(ExecutionContext context, JsonNode node, JsonNode rootNode, NodePath instanceLocation) {
            List<Error> outer = context.getErrors();
            boolean failFast = context.isFailFast();
            List<Error> scratch = new ArrayList<>();
            boolean matched = false;
            try {
                context.setFailFast(false);
                context.setErrors(scratch);
                for (int i = 0; i < branches.size() && !matched; i++) {
                    scratch.clear();
                    context.evaluationPathAddLast(i);
                    try {
                        branches.get(i).validate(context, node, rootNode, instanceLocation);
                    } finally {
                        context.evaluationPathRemoveLast();
                    }
                    matched = scratch.isEmpty();
                }
            } finally {
                context.setErrors(outer);
                context.setFailFast(failFast);
            }
            if (!matched) {
                context.addError(error().instanceNode(node)
                        .instanceLocation(instanceLocation)
                        .evaluationPath(context.getEvaluationPath())
                        .locale(context.getExecutionConfig().getLocale())
                        .build());
            }
        }

        @Override
        public void preloadSchema() {
            preloadSchemas(branches);
        }
    }
}
