package dev.skillgate.inspect.internal;

import dev.skillgate.inspect.FrontmatterValue;
import dev.skillgate.inspect.ValidationProfile;
import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.shared.Text;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.snakeyaml.engine.v2.api.LoadSettings;
import org.snakeyaml.engine.v2.events.AliasEvent;
import org.snakeyaml.engine.v2.events.CollectionEndEvent;
import org.snakeyaml.engine.v2.events.CollectionStartEvent;
import org.snakeyaml.engine.v2.events.DocumentStartEvent;
import org.snakeyaml.engine.v2.events.Event;
import org.snakeyaml.engine.v2.events.MappingStartEvent;
import org.snakeyaml.engine.v2.events.NodeEvent;
import org.snakeyaml.engine.v2.events.ScalarEvent;
import org.snakeyaml.engine.v2.exceptions.Mark;
import org.snakeyaml.engine.v2.exceptions.MarkedYamlEngineException;
import org.snakeyaml.engine.v2.exceptions.YamlEngineException;
import org.snakeyaml.engine.v2.parser.ParserImpl;
import org.snakeyaml.engine.v2.scanner.StreamReader;

/**
 * Reads frontmatter YAML into a text-only {@link FrontmatterValue} tree from SnakeYAML Engine's
 * event stream, never from its composer or constructor: no Java object is ever constructed, no tag
 * is honoured (any explicit tag is refused), any anchor or alias is refused (so no alias bomb can
 * expand), duplicate keys and non-scalar keys are refused, and nesting is bounded while the events
 * are consumed lazily, so a 10,000-deep document is refused after {@value #MAX_DEPTH} levels without
 * the parser ever seeing the rest. The parser itself is an explicit-stack state machine (no
 * recursion).
 */
public final class YamlFrontmatter {
    /** Deepest nesting of collections accepted (the top-level mapping is depth 1). */
    public static final int MAX_DEPTH = 32;

    static final String REF_FLOW =
            "Found ugly disallowed JSONesque flow mapping (surround with ' and ' to make text appear literally)";

    private YamlFrontmatter() {}

    /**
     * Parses {@code yaml}; {@code firstLine} is the file line number of the frontmatter's first line
     * (for messages). Returns the root value, or throws a refusal with a frontmatter code.
     */
    public static Optional<FrontmatterValue> read(
            String yaml, int firstLine, ValidationProfile profile, String location) throws Refusal {
        LoadSettings settings = LoadSettings.builder()
                .setAllowDuplicateKeys(false)
                .setMaxAliasesForCollections(0)
                .setAllowRecursiveKeys(false)
                .setParseComments(false)
                .setUseMarks(true)
                .setCodePointLimit(yaml.length() + 16)
                .build();
        Deque<Builder> stack = new ArrayDeque<>();
        FrontmatterValue root = null;
        int documents = 0;
        try {
            Iterator<Event> events = new ParserImpl(settings, new StreamReader(settings, yaml));
            while (events.hasNext()) {
                Event event = events.next();
                if (event instanceof DocumentStartEvent) {
                    documents++;
                    if (documents > 1) {
                        throw yamlError(
                                location, "the frontmatter holds more than one YAML document", line(event, firstLine));
                    }
                    continue;
                }
                if (event instanceof AliasEvent) {
                    throw new Refusal(
                            ErrorCode.FM_ALIAS,
                            location,
                            "YAML aliases are not allowed in frontmatter" + at(line(event, firstLine)));
                }
                if (event instanceof NodeEvent node && node.getAnchor().isPresent()) {
                    throw new Refusal(
                            ErrorCode.FM_ALIAS,
                            location,
                            "YAML anchors are not allowed in frontmatter" + at(line(event, firstLine)));
                }
                if (event instanceof CollectionStartEvent start) {
                    checkTag(start.getTag(), event, firstLine, location);
                    if (profile == ValidationProfile.REFERENCE_COMPATIBLE && start.isFlow()) {
                        throw yamlError(location, REF_FLOW, line(event, firstLine));
                    }
                    if (!stack.isEmpty()) {
                        stack.peek().checkCanHoldCollection(event, firstLine, location);
                    }
                    if (stack.size() >= MAX_DEPTH) {
                        throw new Refusal(
                                ErrorCode.FM_DEPTH,
                                location,
                                "frontmatter nests deeper than " + MAX_DEPTH + " levels" + at(line(event, firstLine)));
                    }
                    stack.push(event instanceof MappingStartEvent ? new MapBuilder() : new ListBuilder());
                    continue;
                }
                if (event instanceof CollectionEndEvent) {
                    FrontmatterValue done = stack.pop().build();
                    if (stack.isEmpty()) {
                        root = done;
                    } else {
                        stack.peek().add(done, event, firstLine, location);
                    }
                    continue;
                }
                if (event instanceof ScalarEvent scalar) {
                    checkTag(scalar.getTag(), event, firstLine, location);
                    FrontmatterValue value = new FrontmatterValue.Scalar(scalar.getValue());
                    if (stack.isEmpty()) {
                        root = value;
                    } else {
                        stack.peek().add(value, event, firstLine, location);
                    }
                }
            }
        } catch (MarkedYamlEngineException e) {
            int line = e.getProblemMark().map(m -> m.getLine() + firstLine).orElse(-1);
            throw yamlError(location, describe(e), line);
        } catch (YamlEngineException e) {
            throw yamlError(location, shortText(e.getMessage()), -1);
        } catch (StackOverflowError e) {
            // Not expected (the event parser keeps explicit stacks); kept so that no input can crash
            // a caller even if a future engine version recursed.
            throw new Refusal(ErrorCode.FM_DEPTH, location, "frontmatter nests too deeply to parse");
        } catch (RuntimeException e) {
            // A parser fault on hostile input is reported as a YAML error, never thrown at the host.
            throw yamlError(location, "the YAML parser failed (" + e.getClass().getSimpleName() + ")", -1);
        }
        return Optional.ofNullable(root);
    }

    private static void checkTag(Optional<String> tag, Event event, int firstLine, String location) throws Refusal {
        if (tag.isPresent()) {
            throw new Refusal(
                    ErrorCode.FM_TAG,
                    location,
                    "YAML tags are not honoured in frontmatter (found '" + Text.excerpt(tag.get()) + "')"
                            + at(line(event, firstLine)));
        }
    }

    static Refusal yamlError(String location, String problem, int line) {
        return new Refusal(ErrorCode.FM_YAML, location, "Invalid YAML in frontmatter: " + problem + at(line));
    }

    private static String at(int line) {
        return line > 0 ? " (line " + line + ")" : "";
    }

    private static int line(Event event, int firstLine) {
        return event.getStartMark().map(Mark::getLine).map(l -> l + firstLine).orElse(-1);
    }

    private static String describe(MarkedYamlEngineException e) {
        String problem = e.getProblem();
        String context = e.getContext();
        StringBuilder text = new StringBuilder();
        if (context != null && !context.isBlank()) {
            text.append(context.strip()).append(": ");
        }
        text.append(problem == null ? "malformed YAML" : problem.strip());
        // SnakeYAML spells a tab "\\t(TAB)"; the reference's parser says "\\t".
        return shortText(text.toString().replace("\\t(TAB)", "\\t"));
    }

    private static String shortText(String message) {
        if (message == null) {
            return "malformed YAML";
        }
        int newline = message.indexOf('\n');
        String first = newline < 0 ? message : message.substring(0, newline);
        return Text.sanitize(first, 160);
    }

    private abstract static class Builder {
        abstract void add(FrontmatterValue value, Event event, int firstLine, String location) throws Refusal;

        abstract void checkCanHoldCollection(Event event, int firstLine, String location) throws Refusal;

        abstract FrontmatterValue build();
    }

    private static final class ListBuilder extends Builder {
        private final List<FrontmatterValue> items = new ArrayList<>();

        @Override
        void add(FrontmatterValue value, Event event, int firstLine, String location) {
            items.add(value);
        }

        @Override
        void checkCanHoldCollection(Event event, int firstLine, String location) {}

        @Override
        FrontmatterValue build() {
            return new FrontmatterValue.Sequence(items);
        }
    }

    private static final class MapBuilder extends Builder {
        private final Map<String, FrontmatterValue> entries = new LinkedHashMap<>();
        private String pendingKey;

        @Override
        void add(FrontmatterValue value, Event event, int firstLine, String location) throws Refusal {
            if (pendingKey == null) {
                if (!(value instanceof FrontmatterValue.Scalar key)) {
                    throw yamlError(location, "a mapping key is not a plain value", line(event, firstLine));
                }
                if (entries.containsKey(key.text())) {
                    throw new Refusal(
                            ErrorCode.FM_DUPLICATE_KEY,
                            location,
                            "Invalid YAML in frontmatter: Duplicate key '" + Text.excerpt(key.text()) + "' found"
                                    + at(line(event, firstLine)));
                }
                pendingKey = key.text();
            } else {
                entries.put(pendingKey, value);
                pendingKey = null;
            }
        }

        @Override
        void checkCanHoldCollection(Event event, int firstLine, String location) throws Refusal {
            if (pendingKey == null) {
                throw yamlError(location, "a mapping key is not a plain value", line(event, firstLine));
            }
        }

        @Override
        FrontmatterValue build() {
            return new FrontmatterValue.Mapping(entries);
        }
    }
}
