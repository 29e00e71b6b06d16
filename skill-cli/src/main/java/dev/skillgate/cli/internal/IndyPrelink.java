package dev.skillgate.cli.internal;

import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.ArrayList;
import java.util.List;

/**
 * Links, in the launcher's class-data sharing training run only, the lambda and record call sites of
 * the listed classes without running any of their code (decision 0886), so that the dynamic archive
 * written at exit holds their lambda proxy classes and the method-handle forms behind them.
 *
 * <p>Why: a JDK 17 dynamic archive keeps a lambda proxy only for a call site linked during training,
 * and the training is inert (decision 0824: no process, no state), so it cannot run {@code run}'s
 * code; every lambda of that path was spun again by every {@code skillgate run} (158 on the sample,
 * ≈ 0.3–0.5 ms each). Linking a call site is what the JVM does at its first execution: read the
 * {@code invokedynamic} constant and its bootstrap arguments from the class file and call the
 * bootstrap method. This class does the same for two bootstraps only,
 * {@code LambdaMetafactory.metafactory}/{@code altMetafactory} and {@code ObjectMethods.bootstrap}
 * (records' {@code toString}, {@code equals}, {@code hashCode}); the archive is then keyed exactly as
 * the JVM looks it up at run time (caller class, name, types, implementation method).
 *
 * <p>What it guarantees: no method of a listed class runs and no static initialiser of one runs
 * (method handles are looked up, never invoked; classes are loaded with {@code initialize=false});
 * it reads only class files through the class loader, bounded ({@value #MAX_CLASS_BYTES} bytes, the
 * constant pool and attribute counts of the file itself); anything it cannot read, resolve or link
 * is skipped, which only leaves that call site to be linked at run time as before. What it does not
 * guarantee: that every call site is archived (the JVM decides what it keeps), or anything outside
 * a training run — no command uses it.
 */
final class IndyPrelink {
    /** Larger class files are skipped (ours are below 100 KB). */
    static final int MAX_CLASS_BYTES = 1 << 20;

    private static final String LAMBDA_FACTORY = "java/lang/invoke/LambdaMetafactory";
    private static final String OBJECT_METHODS = "java/lang/runtime/ObjectMethods";

    private static final int UTF8 = 1;
    private static final int INTEGER = 3;
    private static final int FLOAT = 4;
    private static final int LONG = 5;
    private static final int DOUBLE = 6;
    private static final int CLASS = 7;
    private static final int STRING = 8;
    private static final int FIELD_REF = 9;
    private static final int METHOD_REF = 10;
    private static final int INTERFACE_METHOD_REF = 11;
    private static final int NAME_AND_TYPE = 12;
    private static final int METHOD_HANDLE = 15;
    private static final int METHOD_TYPE = 16;
    private static final int DYNAMIC = 17;
    private static final int INVOKE_DYNAMIC = 18;
    private static final int MODULE = 19;
    private static final int PACKAGE = 20;

    private IndyPrelink() {}

    /**
     * Links the lambda and record call sites of each named class the loader defines itself.
     *
     * @return how many call sites were linked
     */
    static int link(List<String> names, ClassLoader loader) {
        int linked = 0;
        for (String name : names) {
            try {
                Class<?> owner = Class.forName(name, false, loader);
                if (owner.getClassLoader() != loader) {
                    continue; // a JDK class: its lambdas are the JDK archive's business
                }
                byte[] bytes = classBytes(name, loader);
                if (bytes.length == 0) {
                    continue;
                }
                linked += linkAll(owner, ClassFile.read(bytes));
            } catch (ReflectiveOperationException | IOException | LinkageError | RuntimeException e) {
                // Skipped: that class's call sites are linked at their first use, as without training.
            }
        }
        return linked;
    }

    /**
     * Counts the {@code LambdaMetafactory} call sites (lambdas and method references) in one class
     * file, without linking or loading anything: the check that a class rewritten without lambdas
     * (decision 0895) stays so.
     */
    static int lambdaSites(byte[] classFile) throws IOException {
        ClassFile file = ClassFile.read(classFile);
        int count = 0;
        for (ClassFile.Site site : file.sites()) {
            if (file.className(file.bootstrapMethod(site)[1]).equals(LAMBDA_FACTORY)) {
                count++;
            }
        }
        return count;
    }

    /** The class file of {@code name} as the loader finds it; empty when it is missing or too large. */
    static byte[] classBytes(String name, ClassLoader loader) throws IOException {
        try (InputStream in = loader.getResourceAsStream(name.replace('.', '/') + ".class")) {
            if (in == null) {
                return new byte[0];
            }
            byte[] bytes = in.readNBytes(MAX_CLASS_BYTES + 1);
            return bytes.length > MAX_CLASS_BYTES ? new byte[0] : bytes;
        }
    }

    private static int linkAll(Class<?> owner, ClassFile file) throws IllegalAccessException {
        MethodHandles.Lookup caller = MethodHandles.privateLookupIn(owner, MethodHandles.lookup());
        Resolver resolver = new Resolver(caller, file);
        int linked = 0;
        for (ClassFile.Site site : file.sites()) {
            try {
                if (resolver.link(site)) {
                    linked++;
                }
            } catch (Throwable e) { // a bootstrap may throw anything; the site is linked later instead
                if (e instanceof VirtualMachineError error) {
                    throw error;
                }
            }
        }
        return linked;
    }

    /** Resolves constants of one class file against its own lookup, never invoking a resolved handle. */
    private record Resolver(MethodHandles.Lookup caller, ClassFile file) {
        boolean link(ClassFile.Site site) throws Throwable {
            int[] bootstrap = file.bootstrap(site);
            int[] member = file.bootstrapMethod(site);
            String bootstrapOwner = file.className(member[1]);
            int[] bootstrapNat = file.entry(member[2]);
            String bootstrapName = file.utf8(bootstrapNat[1]);
            boolean lambda = bootstrapOwner.equals(LAMBDA_FACTORY)
                    && (bootstrapName.equals("metafactory") || bootstrapName.equals("altMetafactory"));
            boolean record = bootstrapOwner.equals(OBJECT_METHODS) && bootstrapName.equals("bootstrap");
            if (!lambda && !record) {
                return false;
            }
            MethodHandle bsm = MethodHandles.lookup()
                    .findStatic(
                            Class.forName(bootstrapOwner.replace('/', '.'), false, null),
                            bootstrapName,
                            methodType(file.utf8(bootstrapNat[2])));
            int[] nat = file.entry(site.nameAndType());
            List<Object> arguments = new ArrayList<>(3 + bootstrap.length);
            arguments.add(caller);
            arguments.add(file.utf8(nat[1]));
            arguments.add(methodType(file.utf8(nat[2])));
            for (int i = 1; i < bootstrap.length; i++) {
                arguments.add(constant(bootstrap[i]));
            }
            bsm.invokeWithArguments(arguments); // links; the call site's target is never invoked
            return true;
        }

        private Object constant(int index) throws ReflectiveOperationException {
            int[] entry = file.entry(index);
            return switch (entry[0]) {
                case METHOD_TYPE -> methodType(file.utf8(entry[1]));
                case METHOD_HANDLE -> methodHandle(entry[1], entry[2]);
                case CLASS -> type(file.className(index));
                case STRING -> file.utf8(entry[1]);
                case INTEGER -> entry[1];
                default -> throw new IllegalArgumentException("constant kind " + entry[0]);
            };
        }

        private MethodHandle methodHandle(int kind, int memberIndex) throws ReflectiveOperationException {
            int[] member = file.entry(memberIndex);
            Class<?> owner = type(file.className(member[1]));
            int[] nat = file.entry(member[2]);
            String name = file.utf8(nat[1]);
            String descriptor = file.utf8(nat[2]);
            return switch (kind) {
                case 1 -> caller.findGetter(owner, name, fieldType(descriptor));
                case 2 -> caller.findStaticGetter(owner, name, fieldType(descriptor));
                case 5, 9 -> caller.findVirtual(owner, name, methodType(descriptor));
                case 6 -> caller.findStatic(owner, name, methodType(descriptor));
                case 7 -> caller.findSpecial(owner, name, methodType(descriptor), caller.lookupClass());
                case 8 -> caller.findConstructor(owner, methodType(descriptor));
                default -> throw new IllegalArgumentException("method handle kind " + kind);
            };
        }

        private Class<?> type(String internalName) throws ClassNotFoundException {
            // Array classes are named by their descriptor ("[Ljava/lang/String;"), which
            // Class.forName takes with dots as well.
            return Class.forName(
                    internalName.replace('/', '.'), false, caller.lookupClass().getClassLoader());
        }

        private MethodType methodType(String descriptor) {
            return MethodType.fromMethodDescriptorString(
                    descriptor, caller.lookupClass().getClassLoader());
        }

        private Class<?> fieldType(String descriptor) {
            return methodType("()" + descriptor).returnType();
        }
    }

    /**
     * The parts of a class file this needs: its constant pool, its {@code BootstrapMethods}
     * attribute and its {@code invokedynamic} constants. Every count and index comes from the file and
     * is checked against what was read; a malformed file throws {@link IOException} or
     * {@link IllegalArgumentException}.
     */
    static final class ClassFile {
        /** One {@code CONSTANT_InvokeDynamic}: its bootstrap's index and its name-and-type index. */
        record Site(int bootstrap, int nameAndType) {}

        private final int[][] entries;
        private final String[] utf8;
        private final List<int[]> bootstraps;
        private final List<Site> sites;

        private ClassFile(int[][] entries, String[] utf8, List<int[]> bootstraps, List<Site> sites) {
            this.entries = entries;
            this.utf8 = utf8;
            this.bootstraps = bootstraps;
            this.sites = sites;
        }

        static ClassFile read(byte[] bytes) throws IOException {
            DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes));
            if (in.readInt() != 0xCAFEBABE) {
                throw new IOException("not a class file");
            }
            in.readUnsignedShort(); // minor
            in.readUnsignedShort(); // major
            int count = in.readUnsignedShort();
            int[][] entries = new int[count][];
            String[] utf8 = new String[count];
            List<Site> sites = new ArrayList<>();
            for (int i = 1; i < count; i++) {
                int tag = in.readUnsignedByte();
                switch (tag) {
                    case UTF8 -> {
                        utf8[i] = in.readUTF();
                        entries[i] = new int[] {tag};
                    }
                    case INTEGER -> entries[i] = new int[] {tag, in.readInt()};
                    case FLOAT -> entries[i] = new int[] {tag, in.readInt()};
                    case LONG, DOUBLE -> {
                        in.readLong();
                        entries[i] = new int[] {tag};
                        i++; // eight-byte constants take two slots
                    }
                    case CLASS, STRING, METHOD_TYPE, MODULE, PACKAGE ->
                        entries[i] = new int[] {tag, in.readUnsignedShort()};
                    case FIELD_REF, METHOD_REF, INTERFACE_METHOD_REF, NAME_AND_TYPE, DYNAMIC ->
                        entries[i] = new int[] {tag, in.readUnsignedShort(), in.readUnsignedShort()};
                    case INVOKE_DYNAMIC -> {
                        entries[i] = new int[] {tag, in.readUnsignedShort(), in.readUnsignedShort()};
                        sites.add(new Site(entries[i][1], entries[i][2]));
                    }
                    case METHOD_HANDLE -> entries[i] = new int[] {tag, in.readUnsignedByte(), in.readUnsignedShort()};
                    default -> throw new IOException("unknown constant tag " + tag + " at " + i);
                }
            }
            in.readUnsignedShort(); // access flags
            in.readUnsignedShort(); // this class
            in.readUnsignedShort(); // super class
            skip(in, 2L * in.readUnsignedShort()); // interfaces
            skipMembers(in); // fields
            skipMembers(in); // methods
            List<int[]> bootstraps = new ArrayList<>();
            int attributes = in.readUnsignedShort();
            for (int a = 0; a < attributes; a++) {
                int nameIndex = in.readUnsignedShort();
                long length = in.readInt() & 0xFFFFFFFFL;
                if (nameIndex > 0 && nameIndex < count && "BootstrapMethods".equals(utf8[nameIndex])) {
                    int n = in.readUnsignedShort();
                    for (int b = 0; b < n; b++) {
                        int handle = in.readUnsignedShort();
                        int arguments = in.readUnsignedShort();
                        int[] bootstrap = new int[1 + arguments];
                        bootstrap[0] = handle;
                        for (int k = 0; k < arguments; k++) {
                            bootstrap[1 + k] = in.readUnsignedShort();
                        }
                        bootstraps.add(bootstrap);
                    }
                } else {
                    skip(in, length);
                }
            }
            return new ClassFile(entries, utf8, List.copyOf(bootstraps), List.copyOf(sites));
        }

        private static void skipMembers(DataInputStream in) throws IOException {
            int members = in.readUnsignedShort();
            for (int m = 0; m < members; m++) {
                skip(in, 6); // access, name, descriptor
                int attributes = in.readUnsignedShort();
                for (int a = 0; a < attributes; a++) {
                    in.readUnsignedShort();
                    skip(in, in.readInt() & 0xFFFFFFFFL);
                }
            }
        }

        private static void skip(DataInputStream in, long n) throws IOException {
            if (n > Integer.MAX_VALUE || in.skipBytes((int) n) != n) {
                throw new IOException("truncated class file");
            }
        }

        List<Site> sites() {
            return sites;
        }

        /** The {@code BootstrapMethods} entry of {@code site}: its handle's index, then its arguments. */
        int[] bootstrap(Site site) {
            if (site.bootstrap() >= bootstraps.size()) {
                throw new IllegalArgumentException("no bootstrap method " + site.bootstrap());
            }
            return bootstraps.get(site.bootstrap());
        }

        /**
         * The method reference ({@code tag, class index, name-and-type index}) that {@code site}'s
         * bootstrap handle names, each step checked for its kind.
         */
        int[] bootstrapMethod(Site site) {
            int handleIndex = bootstrap(site)[0];
            int[] handle = entry(handleIndex);
            if (handle[0] != METHOD_HANDLE) {
                throw new IllegalArgumentException("constant " + handleIndex + " is not a method handle");
            }
            int[] member = entry(handle[2]);
            if (member[0] != METHOD_REF && member[0] != INTERFACE_METHOD_REF) {
                throw new IllegalArgumentException("constant " + handle[2] + " is not a method");
            }
            return member;
        }

        int[] entry(int index) {
            if (index <= 0 || index >= entries.length || entries[index] == null) {
                throw new IllegalArgumentException("no constant " + index);
            }
            return entries[index];
        }

        String utf8(int index) {
            entry(index);
            if (utf8[index] == null) {
                throw new IllegalArgumentException("constant " + index + " is not UTF-8");
            }
            return utf8[index];
        }

        /** The internal name of the {@code CONSTANT_Class} at {@code index}. */
        String className(int index) {
            int[] e = entry(index);
            if (e[0] != CLASS) {
                throw new IllegalArgumentException("constant " + index + " is not a class");
            }
            return utf8(e[1]);
        }
    }
}
