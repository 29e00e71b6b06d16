// Skillgate module guard, version 1 (docs/runner.md "Module confinement", decision 0510).
//
// The runner passes this text, with the table below filled in, as
// `--import data:text/javascript;base64,...`: it exists only in the process's argv, so nothing on
// disk can change it, or the table, after exec. It runs before the entrypoint and
//  - resolves every import, import(), require() and require.resolve() itself: Node built-ins, data:
//    URLs, and files of the table (the approved capture) under ROOT; anything else fails inside the
//    script like a missing module (ERR_MODULE_NOT_FOUND / MODULE_NOT_FOUND): no node_modules, no
//    NODE_PATH, no global folders, no package "imports" or self-reference;
//  - reads each file once, when it is loaded, hashes exactly those bytes and hands exactly those
//    bytes to the compiler; a file whose bytes differ from the table (or that is missing or a
//    link) ends the process at once: a tagged line on fd 2, then exit code 86 (a
//    worker thread, which cannot end the process with a code, sends SIGKILL to it). No script code
//    can catch that.
//  - puts itself into every worker thread, also one started with its own execArgv.
'use strict';

const GUARD = /*@GUARD_TABLE@*/ null;

import * as nodeModule from 'node:module';

const TAG = 'skillgate-module-guard:';
const CHANGED_EXIT = 86;
const MAX_BYTES = 1048576;
const ROOT = GUARD.root;
const FILES = new Map(GUARD.files);
const ENTRY_ARG = GUARD.entryArg;
const SELF_URL = import.meta.url;
const reallyExit = process.reallyExit;
const processBinding = process.binding;
const getBuiltinModule = process.getBuiltinModule;
const killProcess = process.kill;
const PID = process.pid;
const MAIN_ARG = process.argv[1];
const isBuiltin = nodeModule.isBuiltin;
const Module = nodeModule.Module;
// Built-ins through require (no ES facade to build), before the CommonJS loader is patched.
const require = nodeModule.createRequire(ROOT + '/');
const fs = require('node:fs');
const nodePath = require('node:path');
const { fileURLToPath } = require('node:url');
const { openSync, readSync, closeSync, writeSync } = fs;
const OPEN_FLAGS = fs.constants.O_RDONLY | (fs.constants.O_NOFOLLOW || 0) | (fs.constants.O_NONBLOCK || 0);
const CHUNK = 65536;
const hasRegisterHooks = typeof nodeModule.registerHooks === 'function';

// node:worker_threads and node:crypto cost about 0.5 and 2 ms of start-up: loaded only when needed.
let workerThreads = null;
function threads() {
    if (workerThreads === null) {
        workerThreads = require('node:worker_threads');
    }
    return workerThreads;
}

const ABC_SHA256 = 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad';
let sha256hex = null;
/** SHA-256 through the crypto binding where this Node has it (checked on a known answer), else node:crypto. */
function pickSha256() {
    try {
        const saved = process.noDeprecation;
        let binding;
        process.noDeprecation = true;
        try {
            binding = processBinding.call(process, 'crypto');
        } finally {
            process.noDeprecation = saved;
        }
        const viaBinding = (bytes) => {
            const h = new binding.Hash('sha256', undefined, -1, {});
            h.update(bytes);
            return h.digest('hex');
        };
        if (viaBinding(Buffer.from('abc')) === ABC_SHA256) {
            return viaBinding;
        }
    } catch {
        // No such binding (Node 24+): the public module.
    }
    const { createHash } = require('node:crypto');
    return (bytes) => createHash('sha256').update(bytes).digest('hex');
}

function fatal(code, rel) {
    try {
        writeSync(2, '\n' + TAG + ' ' + code + ' ' + JSON.stringify(String(rel)) + '\n');
    } catch {
        // fd 2 may be closed by the script; the exit code still says it.
    }
    if (threads().isMainThread) {
        reallyExit.call(process, CHANGED_EXIT);
    }
    killProcess.call(process, PID, 'SIGKILL');
    throw new Error(TAG + ' ' + code);
}

function notFound(specifier, esm) {
    const err = new Error(
        esm ? "Cannot find module '" + specifier + "' (not among the approved files)"
            : "Cannot find module '" + specifier + "'");
    err.code = esm ? 'ERR_MODULE_NOT_FOUND' : 'MODULE_NOT_FOUND';
    return err;
}

/** The table path of an absolute file name, or null when it is not an approved file. */
function relOf(file) {
    if (typeof file !== 'string' || !file.startsWith(ROOT + '/')) {
        return null;
    }
    const rel = file.slice(ROOT.length + 1);
    return FILES.has(rel) ? rel : null;
}

/**
 * Reads an approved file once and returns its bytes if they are the approved ones. No link is
 * followed (O_NOFOLLOW); at most MAX_BYTES are read; a FIFO (opened without blocking) reads as
 * empty, a directory fails, a device is cut at the bound: all of them then fail the digest.
 */
function readVerified(rel) {
    let fd;
    try {
        fd = openSync(ROOT + '/' + rel, OPEN_FLAGS);
    } catch {
        fatal('STAGED_MODULE_CHANGED', rel);
    }
    let bytes;
    try {
        const chunks = [];
        let total = 0;
        for (;;) {
            const buf = Buffer.allocUnsafe(CHUNK);
            const r = readSync(fd, buf, 0, CHUNK, null);
            if (r === 0) {
                break;
            }
            chunks.push(r === CHUNK ? buf : buf.subarray(0, r));
            total += r;
            if (total > MAX_BYTES) {
                break;
            }
        }
        bytes = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, total);
    } catch {
        bytes = null;
    } finally {
        closeSync(fd);
    }
    if (bytes === null || bytes.length > MAX_BYTES) {
        fatal('STAGED_MODULE_CHANGED', rel);
    }
    if (sha256hex === null) {
        sha256hex = pickSha256();
    }
    if (sha256hex(bytes) !== FILES.get(rel)) {
        fatal('STAGED_MODULE_CHANGED', rel);
    }
    return bytes;
}

const packageTypes = new Map();

/** "module" or "commonjs": the type of the nearest package.json of the approved files at or above dirRel. */
function packageType(dirRel) {
    if (packageTypes.has(dirRel)) {
        return packageTypes.get(dirRel);
    }
    let type;
    const main = packageMain(dirRel);
    if (main.found) {
        type = main.type;
    } else if (dirRel === '') {
        type = 'commonjs';
    } else {
        const up = dirRel.lastIndexOf('/');
        type = packageType(up < 0 ? '' : dirRel.slice(0, up));
    }
    packageTypes.set(dirRel, type);
    return type;
}

const packageJsons = new Map();

/** The approved package.json of dirRel, parsed: { found, type, main }. */
function packageMain(dirRel) {
    if (packageJsons.has(dirRel)) {
        return packageJsons.get(dirRel);
    }
    const rel = dirRel === '' ? 'package.json' : dirRel + '/package.json';
    let result = { found: false, type: 'commonjs', main: undefined };
    if (FILES.has(rel)) {
        let parsed;
        try {
            parsed = JSON.parse(readVerified(rel).toString('utf8'));
        } catch (e) {
            const err = new Error('Invalid package config ' + ROOT + '/' + rel);
            err.code = 'ERR_INVALID_PACKAGE_CONFIG';
            throw err;
        }
        const type = parsed !== null && typeof parsed === 'object' && parsed.type === 'module' ? 'module' : 'commonjs';
        const main = parsed !== null && typeof parsed === 'object' && typeof parsed.main === 'string' ? parsed.main : undefined;
        result = { found: true, type, main };
    }
    packageJsons.set(dirRel, result);
    return result;
}

function dirOfRel(rel) {
    const i = rel.lastIndexOf('/');
    return i < 0 ? '' : rel.slice(0, i);
}

/** The format Node compiles an approved file as; decided from the approved bytes only. */
function formatOf(rel) {
    const base = rel.slice(rel.lastIndexOf('/') + 1);
    const dot = base.lastIndexOf('.');
    const ext = dot > 0 ? base.slice(dot) : '';
    switch (ext) {
        case '.mjs':
            return 'module';
        case '.cjs':
            return 'commonjs';
        case '.json':
            return 'json';
        case '.js':
        case '':
            return packageType(dirOfRel(rel));
        default:
            return null;
    }
}

function isPathLike(specifier) {
    return specifier === '.' || specifier === '..' || specifier.startsWith('./') || specifier.startsWith('../')
        || specifier.startsWith('/');
}

// ---- ES modules: one resolution for import, import() and import.meta.resolve ----

function resolveImport(specifier, parentURL) {
    specifier = String(specifier);
    guardWorkersIfNamed(specifier);
    if (specifier.startsWith('node:')) {
        if (isBuiltin(specifier)) {
            return { url: specifier, format: 'builtin' };
        }
        throw notFound(specifier, true);
    }
    if (isBuiltin(specifier)) {
        return { url: 'node:' + specifier, format: 'builtin' };
    }
    if (specifier.startsWith('data:')) {
        return null; // Node's own resolution: code the script wrote itself.
    }
    let url;
    try {
        if (isPathLike(specifier)) {
            url = new URL(specifier, parentURL);
        } else if (specifier.startsWith('file:')) {
            url = new URL(specifier);
        }
    } catch {
        url = undefined;
    }
    let rel = null;
    if (url !== undefined && url.protocol === 'file:') {
        try {
            rel = relOf(fileURLToPath(url));
        } catch {
            rel = null;
        }
    }
    if (rel === null) {
        if (parentURL === undefined && MAIN_ARG === ENTRY_ARG && threads().isMainThread) {
            // The approved entrypoint itself resolved to something else: the staging was changed.
            fatal('STAGED_MODULE_CHANGED', GUARD.entry);
        }
        throw notFound(specifier, true);
    }
    const format = formatOf(rel);
    return { url: url.href, format: format === null ? undefined : format };
}

/** A load result for an approved file: exactly the verified bytes (CommonJS: see loadImport). */
function loadFile(url, importAttributes, cjsSourceNull) {
    let rel = null;
    try {
        rel = relOf(fileURLToPath(url));
    } catch {
        rel = null;
    }
    if (rel === null) {
        throw notFound(url, true);
    }
    const format = formatOf(rel);
    if (format === null) {
        const err = new TypeError('Unknown file extension for ' + ROOT + '/' + rel);
        err.code = 'ERR_UNKNOWN_FILE_EXTENSION';
        throw err;
    }
    const type = importAttributes != null ? importAttributes.type : undefined;
    if (format === 'json' && type !== 'json') {
        const err = new TypeError('Module "' + url + '" needs an import attribute of "type: json"');
        err.code = 'ERR_IMPORT_ATTRIBUTE_MISSING';
        throw err;
    }
    if (format !== 'json' && type !== undefined) {
        const err = new TypeError('Module "' + url + '" is not of type "' + type + '"');
        err.code = 'ERR_IMPORT_ATTRIBUTE_TYPE_INCOMPATIBLE';
        throw err;
    }
    if (format === 'commonjs' && cjsSourceNull) {
        // Node 20: a null source hands the file to the CommonJS loader, whose patched handler below
        // reads, verifies and compiles it (a source given here would be compiled with a reduced require).
        return { format, source: null, responseURL: url };
    }
    return { format, source: readVerified(rel), responseURL: url };
}

// ---- CommonJS: require(), require.resolve(), createRequire() ----

const CJS_EXTENSIONS = ['.js', '.json', '.node'];

function tryCjsFile(abs) {
    const rel = relOf(abs);
    if (rel !== null) {
        return rel;
    }
    for (const ext of CJS_EXTENSIONS) {
        const r = relOf(abs + ext);
        if (r !== null) {
            return r;
        }
    }
    return null;
}

function tryCjsIndex(abs) {
    for (const ext of CJS_EXTENSIONS) {
        const r = relOf(abs + '/index' + ext);
        if (r !== null) {
            return r;
        }
    }
    return null;
}

function resolveCjsInTable(abs, directoryOnly) {
    if (!directoryOnly) {
        const file = tryCjsFile(abs);
        if (file !== null) {
            return file;
        }
    }
    let dirRel = null;
    if (abs === ROOT) {
        dirRel = '';
    } else if (abs.startsWith(ROOT + '/')) {
        dirRel = abs.slice(ROOT.length + 1);
    }
    if (dirRel !== null) {
        const pkg = packageMain(dirRel);
        if (pkg.found && pkg.main !== undefined) {
            const m = nodePath.resolve(abs, pkg.main);
            const r = tryCjsFile(m) ?? tryCjsIndex(m);
            if (r !== null) {
                return r;
            }
        }
    }
    return tryCjsIndex(abs);
}

function resolveRequire(request, parent, options) {
    if (typeof request !== 'string') {
        return undefined;
    }
    guardWorkersIfNamed(request);
    if (request.startsWith('node:')) {
        if (isBuiltin(request)) {
            return request;
        }
        throw notFound(request, false);
    }
    if (isBuiltin(request)) {
        return request;
    }
    if (isPathLike(request)) {
        const relative = !request.startsWith('/');
        let bases;
        if (relative && options != null && Array.isArray(options.paths)) {
            bases = options.paths.map(String);
        } else if (parent != null && typeof parent.filename === 'string') {
            bases = [nodePath.dirname(parent.filename)];
        } else {
            bases = [process.cwd()];
        }
        for (const base of bases) {
            const abs = nodePath.resolve(base, request);
            const rel = resolveCjsInTable(abs, request.endsWith('/'));
            if (rel !== null) {
                return ROOT + '/' + rel;
            }
        }
    }
    throw notFound(request, false);
}

const originalResolveFilename = Module._resolveFilename;
const originalLoad = Module._load;
const originalJsHandler = Module._extensions['.js'];

function installCommonJs() {
    // require('node:…') skips _resolveFilename: the one way to reach worker_threads that needs this.
    Module._load = function load(request, parent, isMain) {
        guardWorkersIfNamed(request);
        return originalLoad.call(this, request, parent, isMain);
    };
    Module._resolveFilename = function resolveFilename(request, parent, isMain, options) {
        const resolved = resolveRequire(request, parent, options);
        return resolved === undefined ? originalResolveFilename.call(this, request, parent, isMain, options) : resolved;
    };
    Module._extensions['.js'] = function loadJs(module, filename) {
        const rel = relOf(filename);
        if (rel === null) {
            throw notFound(filename, false);
        }
        const format = formatOf(rel) ?? 'commonjs';
        if (format === 'module') {
            if (hasRegisterHooks) {
                // require(esm) on Node with synchronous hooks: Node compiles what the load hook returns.
                return originalJsHandler.call(this, module, filename);
            }
            const err = new Error('require() of ES Module ' + filename + ' is not supported inside a Skillgate run on'
                + ' this Node version; use import()');
            err.code = 'ERR_REQUIRE_ESM';
            throw err;
        }
        module._compile(readVerified(rel).toString('utf8'), filename, 'commonjs');
    };
    Module._extensions['.json'] = function loadJson(module, filename) {
        const rel = relOf(filename);
        if (rel === null) {
            throw notFound(filename, false);
        }
        let text = readVerified(rel).toString('utf8');
        if (text.charCodeAt(0) === 0xfeff) {
            text = text.slice(1);
        }
        try {
            module.exports = JSON.parse(text);
        } catch (err) {
            err.message = filename + ': ' + err.message;
            throw err;
        }
    };
    Module._extensions['.node'] = function loadAddon() {
        const err = new Error('Cannot load native addon because loading addons is disabled.');
        err.code = 'ERR_DLOPEN_DISABLED';
        throw err;
    };
}

// ---- ES modules on Node with synchronous hooks (22.15+, 23.5+) ----

function installRegisterHooks() {
    nodeModule.registerHooks({
        resolve(specifier, context, nextResolve) {
            const cjs = Array.isArray(context.conditions) && context.conditions.includes('require');
            if (cjs && !String(specifier).startsWith('file:')) {
                // require() and require.resolve(): the patched CommonJS resolution is the one rule.
                const parentFile = context.parentURL !== undefined && context.parentURL.startsWith('file:')
                    ? fileURLToPath(context.parentURL) : undefined;
                const filename = resolveRequire(String(specifier), parentFile === undefined ? undefined
                    : { filename: parentFile }, undefined);
                if (isBuiltin(filename)) {
                    return { url: filename.startsWith('node:') ? filename : 'node:' + filename, format: 'builtin',
                        shortCircuit: true };
                }
                const rel = relOf(filename);
                const format = formatOf(rel);
                return { url: new URL('file://' + filename).href, format: format ?? 'commonjs', shortCircuit: true };
            }
            const r = resolveImport(specifier, context.parentURL);
            if (r === null) {
                return nextResolve(specifier, context);
            }
            return { url: r.url, format: r.format, shortCircuit: true };
        },
        load(url, context, nextLoad) {
            if (!url.startsWith('file:')) {
                return nextLoad(url, context);
            }
            const r = loadFile(url, context.importAttributes, false);
            return { format: r.format, source: r.source, shortCircuit: true };
        },
    });
}

// ---- ES modules on Node 20 (no synchronous hooks): the loader's in-thread customizations ----

function installNode20Customizations() {
    const loaderModule = require('internal/modules/esm/loader');
    const { defaultLoad, defaultLoadSync } = require('internal/modules/esm/load');
    const { initializeImportMeta } = require('internal/modules/esm/initialize_import_meta');
    const loader = loaderModule.getOrInitializeCascadedLoader();
    if (typeof loader.setCustomizations !== 'function' || typeof loader.defaultResolve !== 'function'
        || typeof defaultLoad !== 'function' || typeof defaultLoadSync !== 'function'
        || typeof initializeImportMeta !== 'function') {
        fatal('MODULE_GUARD_UNAVAILABLE', process.version);
    }
    const resolve = (specifier, parentURL, importAttributes) => {
        const r = resolveImport(specifier, parentURL);
        return r === null ? loader.defaultResolve(specifier, parentURL, importAttributes) : r;
    };
    const load = (url, context, sync) => {
        if (url.startsWith('file:')) {
            return loadFile(url, context != null ? context.importAttributes : undefined, true);
        }
        if (!url.startsWith('node:') && !url.startsWith('data:')) {
            throw notFound(url, true);
        }
        return sync ? defaultLoadSync(url, context) : defaultLoad(url, context);
    };
    loader.setCustomizations({
        allowImportMetaResolve: true,
        resolve,
        resolveSync: resolve,
        load: (url, context) => load(url, context, false),
        loadSync: (url, context) => load(url, context, true),
        register() {
            const err = new Error('module.register() is not available inside a Skillgate run');
            err.code = 'ERR_NOT_SUPPORTED';
            throw err;
        },
        importMetaInitialize: (meta, context, l) => initializeImportMeta(meta, context, l),
        forceLoadHooks() {},
    });
    // require(esm) builds its graph outside the customizations (getModuleJobForRequire): refused above
    // in the CommonJS handler, and here for any other way in.
    const refuse = () => {
        const err = new Error('require() of an ES module is not supported inside a Skillgate run on this Node version');
        err.code = 'ERR_REQUIRE_ESM';
        throw err;
    };
    loader.getModuleJobForRequire = refuse;
    loader.importSyncForRequire = refuse;
}

// ---- worker threads: the guard goes into every worker ----

let workersGuarded = false;
function guardWorkersIfNamed(specifier) {
    if (!workersGuarded && (specifier === 'worker_threads' || specifier === 'node:worker_threads')) {
        guardWorkers();
    }
}

/** Before the script can see node:worker_threads, its Worker is replaced by one that keeps the guard. */
function guardWorkers() {
    workersGuarded = true;
    const workerThreads = threads();
    const Original = workerThreads.Worker;
    const prefix = hasRegisterHooks ? ['--import', SELF_URL] : ['--expose-internals', '--import', SELF_URL];
    class Worker extends Original {
        constructor(filename, options) {
            if (options != null && typeof options === 'object' && Array.isArray(options.execArgv)) {
                options = { ...options, execArgv: [...prefix, ...options.execArgv] };
            }
            super(filename, options);
        }
    }
    workerThreads.Worker = Worker;
    nodeModule.syncBuiltinESMExports();
}

function installBuiltinAccess() {
    if (typeof getBuiltinModule === 'function') {
        process.getBuiltinModule = function guardedGetBuiltinModule(id) {
            guardWorkersIfNamed(id);
            return getBuiltinModule.call(process, id);
        };
    }
}

if (hasRegisterHooks) {
    installCommonJs();
    installRegisterHooks();
} else {
    if (typeof Module._resolveFilename !== 'function' || typeof originalJsHandler !== 'function') {
        fatal('MODULE_GUARD_UNAVAILABLE', process.version);
    }
    installNode20Customizations();
    installCommonJs();
}
installBuiltinAccess();
