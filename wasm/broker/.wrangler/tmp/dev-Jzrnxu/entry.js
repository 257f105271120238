var __defProp = Object.defineProperty;
var __name = (target, value) => __defProp(target, "name", { value, configurable: true });

// ../worker/guard.mjs
var TEMPLATES = {
  crossSite: "refused: a page of another site ({from}) may not change anything here; Warren takes changes only from its own pages ({own}) and from clients that are not browsers",
  notJSON: `the body must be JSON, sent with Content-Type: application/json (this request's Content-Type is "{type}")`
};
var SAFE = /* @__PURE__ */ new Set(["GET", "HEAD", "OPTIONS"]);
var KINDS = { 403: "not_authorised", 415: "unsupported_media_type" };
function refuse(req) {
  if (SAFE.has(req.method)) return null;
  const url = new URL(req.url);
  const site = req.headers.get("Sec-Fetch-Site") ?? "";
  const origin = req.headers.get("Origin") ?? "";
  if (site !== "" ? site !== "same-origin" && site !== "none" : origin !== "" && originHost(origin) !== url.host) {
    return reply(403, "crossSite", { from: origin !== "" ? origin : `Sec-Fetch-Site: ${site}`, own: url.origin });
  }
  if (req.body === null || req.headers.get("Content-Length") === "0") return null;
  const type = req.headers.get("Content-Type") ?? "";
  if (type.split(";")[0].trim().toLowerCase() !== "application/json") return reply(415, "notJSON", { type });
  return null;
}
__name(refuse, "refuse");
function originHost(origin) {
  try {
    return new URL(origin).host;
  } catch {
    return "";
  }
}
__name(originHost, "originHost");
function reply(status, key, args) {
  const reason = TEMPLATES[key].replace(/\{(\w+)\}/g, (_, name) => args[name] ?? "");
  return new Response(JSON.stringify({ args, error: KINDS[status], key, reason }), {
    status,
    headers: { "Content-Type": "application/json", "Cache-Control": "no-cache" }
  });
}
__name(reply, "reply");

// build/wasm_exec.js
(() => {
  const enosys = /* @__PURE__ */ __name(() => {
    const err = new Error("not implemented");
    err.code = "ENOSYS";
    return err;
  }, "enosys");
  if (!globalThis.fs) {
    let outputBuf = "";
    globalThis.fs = {
      constants: { O_WRONLY: -1, O_RDWR: -1, O_CREAT: -1, O_TRUNC: -1, O_APPEND: -1, O_EXCL: -1, O_DIRECTORY: -1 },
      // unused
      writeSync(fd, buf) {
        outputBuf += decoder.decode(buf);
        const nl = outputBuf.lastIndexOf("\n");
        if (nl != -1) {
          console.log(outputBuf.substring(0, nl));
          outputBuf = outputBuf.substring(nl + 1);
        }
        return buf.length;
      },
      write(fd, buf, offset, length, position, callback) {
        if (offset !== 0 || length !== buf.length || position !== null) {
          callback(enosys());
          return;
        }
        const n = this.writeSync(fd, buf);
        callback(null, n);
      },
      chmod(path, mode, callback) {
        callback(enosys());
      },
      chown(path, uid, gid, callback) {
        callback(enosys());
      },
      close(fd, callback) {
        callback(enosys());
      },
      fchmod(fd, mode, callback) {
        callback(enosys());
      },
      fchown(fd, uid, gid, callback) {
        callback(enosys());
      },
      fstat(fd, callback) {
        callback(enosys());
      },
      fsync(fd, callback) {
        callback(null);
      },
      ftruncate(fd, length, callback) {
        callback(enosys());
      },
      lchown(path, uid, gid, callback) {
        callback(enosys());
      },
      link(path, link, callback) {
        callback(enosys());
      },
      lstat(path, callback) {
        callback(enosys());
      },
      mkdir(path, perm, callback) {
        callback(enosys());
      },
      open(path, flags, mode, callback) {
        callback(enosys());
      },
      read(fd, buffer, offset, length, position, callback) {
        callback(enosys());
      },
      readdir(path, callback) {
        callback(enosys());
      },
      readlink(path, callback) {
        callback(enosys());
      },
      rename(from, to, callback) {
        callback(enosys());
      },
      rmdir(path, callback) {
        callback(enosys());
      },
      stat(path, callback) {
        callback(enosys());
      },
      symlink(path, link, callback) {
        callback(enosys());
      },
      truncate(path, length, callback) {
        callback(enosys());
      },
      unlink(path, callback) {
        callback(enosys());
      },
      utimes(path, atime, mtime, callback) {
        callback(enosys());
      }
    };
  }
  if (!globalThis.process) {
    globalThis.process = {
      getuid() {
        return -1;
      },
      getgid() {
        return -1;
      },
      geteuid() {
        return -1;
      },
      getegid() {
        return -1;
      },
      getgroups() {
        throw enosys();
      },
      pid: -1,
      ppid: -1,
      umask() {
        throw enosys();
      },
      cwd() {
        throw enosys();
      },
      chdir() {
        throw enosys();
      }
    };
  }
  if (!globalThis.path) {
    globalThis.path = {
      resolve(...pathSegments) {
        return pathSegments.join("/");
      }
    };
  }
  if (!globalThis.crypto) {
    throw new Error("globalThis.crypto is not available, polyfill required (crypto.getRandomValues only)");
  }
  if (!globalThis.performance) {
    throw new Error("globalThis.performance is not available, polyfill required (performance.now only)");
  }
  if (!globalThis.TextEncoder) {
    throw new Error("globalThis.TextEncoder is not available, polyfill required");
  }
  if (!globalThis.TextDecoder) {
    throw new Error("globalThis.TextDecoder is not available, polyfill required");
  }
  const encoder = new TextEncoder("utf-8");
  const decoder = new TextDecoder("utf-8");
  globalThis.Go = class {
    constructor() {
      this.argv = ["js"];
      this.env = {};
      this.exit = (code) => {
        if (code !== 0) {
          console.warn("exit code:", code);
        }
      };
      this._exitPromise = new Promise((resolve) => {
        this._resolveExitPromise = resolve;
      });
      this._pendingEvent = null;
      this._scheduledTimeouts = /* @__PURE__ */ new Map();
      this._nextCallbackTimeoutID = 1;
      const setInt64 = /* @__PURE__ */ __name((addr, v) => {
        this.mem.setUint32(addr + 0, v, true);
        this.mem.setUint32(addr + 4, Math.floor(v / 4294967296), true);
      }, "setInt64");
      const setInt32 = /* @__PURE__ */ __name((addr, v) => {
        this.mem.setUint32(addr + 0, v, true);
      }, "setInt32");
      const getInt64 = /* @__PURE__ */ __name((addr) => {
        const low = this.mem.getUint32(addr + 0, true);
        const high = this.mem.getInt32(addr + 4, true);
        return low + high * 4294967296;
      }, "getInt64");
      const loadValue = /* @__PURE__ */ __name((addr) => {
        const f = this.mem.getFloat64(addr, true);
        if (f === 0) {
          return void 0;
        }
        if (!isNaN(f)) {
          return f;
        }
        const id = this.mem.getUint32(addr, true);
        return this._values[id];
      }, "loadValue");
      const storeValue = /* @__PURE__ */ __name((addr, v) => {
        const nanHead = 2146959360;
        if (typeof v === "number" && v !== 0) {
          if (isNaN(v)) {
            this.mem.setUint32(addr + 4, nanHead, true);
            this.mem.setUint32(addr, 0, true);
            return;
          }
          this.mem.setFloat64(addr, v, true);
          return;
        }
        if (v === void 0) {
          this.mem.setFloat64(addr, 0, true);
          return;
        }
        let id = this._ids.get(v);
        if (id === void 0) {
          id = this._idPool.pop();
          if (id === void 0) {
            id = this._values.length;
          }
          this._values[id] = v;
          this._goRefCounts[id] = 0;
          this._ids.set(v, id);
        }
        this._goRefCounts[id]++;
        let typeFlag = 0;
        switch (typeof v) {
          case "object":
            if (v !== null) {
              typeFlag = 1;
            }
            break;
          case "string":
            typeFlag = 2;
            break;
          case "symbol":
            typeFlag = 3;
            break;
          case "function":
            typeFlag = 4;
            break;
        }
        this.mem.setUint32(addr + 4, nanHead | typeFlag, true);
        this.mem.setUint32(addr, id, true);
      }, "storeValue");
      const loadSlice = /* @__PURE__ */ __name((addr) => {
        const array = getInt64(addr + 0);
        const len = getInt64(addr + 8);
        return new Uint8Array(this._inst.exports.mem.buffer, array, len);
      }, "loadSlice");
      const loadSliceOfValues = /* @__PURE__ */ __name((addr) => {
        const array = getInt64(addr + 0);
        const len = getInt64(addr + 8);
        const a = new Array(len);
        for (let i = 0; i < len; i++) {
          a[i] = loadValue(array + i * 8);
        }
        return a;
      }, "loadSliceOfValues");
      const loadString = /* @__PURE__ */ __name((addr) => {
        const saddr = getInt64(addr + 0);
        const len = getInt64(addr + 8);
        return decoder.decode(new DataView(this._inst.exports.mem.buffer, saddr, len));
      }, "loadString");
      const testCallExport = /* @__PURE__ */ __name((a, b) => {
        this._inst.exports.testExport0();
        return this._inst.exports.testExport(a, b);
      }, "testCallExport");
      const timeOrigin = Date.now() - performance.now();
      this.importObject = {
        _gotest: {
          add: /* @__PURE__ */ __name((a, b) => a + b, "add"),
          callExport: testCallExport
        },
        gojs: {
          // Go's SP does not change as long as no Go code is running. Some operations (e.g. calls, getters and setters)
          // may synchronously trigger a Go event handler. This makes Go code get executed in the middle of the imported
          // function. A goroutine can switch to a new stack if the current stack is too small (see morestack function).
          // This changes the SP, thus we have to update the SP used by the imported function.
          // func wasmExit(code int32)
          "runtime.wasmExit": /* @__PURE__ */ __name((sp) => {
            sp >>>= 0;
            const code = this.mem.getInt32(sp + 8, true);
            this.exited = true;
            delete this._inst;
            delete this._values;
            delete this._goRefCounts;
            delete this._ids;
            delete this._idPool;
            this.exit(code);
          }, "runtime.wasmExit"),
          // func wasmWrite(fd uintptr, p unsafe.Pointer, n int32)
          "runtime.wasmWrite": /* @__PURE__ */ __name((sp) => {
            sp >>>= 0;
            const fd = getInt64(sp + 8);
            const p = getInt64(sp + 16);
            const n = this.mem.getInt32(sp + 24, true);
            fs.writeSync(fd, new Uint8Array(this._inst.exports.mem.buffer, p, n));
          }, "runtime.wasmWrite"),
          // func resetMemoryDataView()
          "runtime.resetMemoryDataView": /* @__PURE__ */ __name((sp) => {
            sp >>>= 0;
            this.mem = new DataView(this._inst.exports.mem.buffer);
          }, "runtime.resetMemoryDataView"),
          // func nanotime1() int64
          "runtime.nanotime1": /* @__PURE__ */ __name((sp) => {
            sp >>>= 0;
            setInt64(sp + 8, (timeOrigin + performance.now()) * 1e6);
          }, "runtime.nanotime1"),
          // func walltime() (sec int64, nsec int32)
          "runtime.walltime": /* @__PURE__ */ __name((sp) => {
            sp >>>= 0;
            const msec = (/* @__PURE__ */ new Date()).getTime();
            setInt64(sp + 8, msec / 1e3);
            this.mem.setInt32(sp + 16, msec % 1e3 * 1e6, true);
          }, "runtime.walltime"),
          // func scheduleTimeoutEvent(delay int64) int32
          "runtime.scheduleTimeoutEvent": /* @__PURE__ */ __name((sp) => {
            sp >>>= 0;
            const id = this._nextCallbackTimeoutID;
            this._nextCallbackTimeoutID++;
            this._scheduledTimeouts.set(id, setTimeout(
              () => {
                this._resume();
                while (this._scheduledTimeouts.has(id)) {
                  console.warn("scheduleTimeoutEvent: missed timeout event");
                  this._resume();
                }
              },
              getInt64(sp + 8)
            ));
            this.mem.setInt32(sp + 16, id, true);
          }, "runtime.scheduleTimeoutEvent"),
          // func clearTimeoutEvent(id int32)
          "runtime.clearTimeoutEvent": /* @__PURE__ */ __name((sp) => {
            sp >>>= 0;
            const id = this.mem.getInt32(sp + 8, true);
            clearTimeout(this._scheduledTimeouts.get(id));
            this._scheduledTimeouts.delete(id);
          }, "runtime.clearTimeoutEvent"),
          // func getRandomData(r []byte)
          "runtime.getRandomData": /* @__PURE__ */ __name((sp) => {
            sp >>>= 0;
            crypto.getRandomValues(loadSlice(sp + 8));
          }, "runtime.getRandomData"),
          // func finalizeRef(v ref)
          "syscall/js.finalizeRef": /* @__PURE__ */ __name((sp) => {
            sp >>>= 0;
            const id = this.mem.getUint32(sp + 8, true);
            this._goRefCounts[id]--;
            if (this._goRefCounts[id] === 0) {
              const v = this._values[id];
              this._values[id] = null;
              this._ids.delete(v);
              this._idPool.push(id);
            }
          }, "syscall/js.finalizeRef"),
          // func stringVal(value string) ref
          "syscall/js.stringVal": /* @__PURE__ */ __name((sp) => {
            sp >>>= 0;
            storeValue(sp + 24, loadString(sp + 8));
          }, "syscall/js.stringVal"),
          // func valueGet(v ref, p string) ref
          "syscall/js.valueGet": /* @__PURE__ */ __name((sp) => {
            sp >>>= 0;
            const result = Reflect.get(loadValue(sp + 8), loadString(sp + 16));
            sp = this._inst.exports.getsp() >>> 0;
            storeValue(sp + 32, result);
          }, "syscall/js.valueGet"),
          // func valueSet(v ref, p string, x ref)
          "syscall/js.valueSet": /* @__PURE__ */ __name((sp) => {
            sp >>>= 0;
            Reflect.set(loadValue(sp + 8), loadString(sp + 16), loadValue(sp + 32));
          }, "syscall/js.valueSet"),
          // func valueDelete(v ref, p string)
          "syscall/js.valueDelete": /* @__PURE__ */ __name((sp) => {
            sp >>>= 0;
            Reflect.deleteProperty(loadValue(sp + 8), loadString(sp + 16));
          }, "syscall/js.valueDelete"),
          // func valueIndex(v ref, i int) ref
          "syscall/js.valueIndex": /* @__PURE__ */ __name((sp) => {
            sp >>>= 0;
            storeValue(sp + 24, Reflect.get(loadValue(sp + 8), getInt64(sp + 16)));
          }, "syscall/js.valueIndex"),
          // valueSetIndex(v ref, i int, x ref)
          "syscall/js.valueSetIndex": /* @__PURE__ */ __name((sp) => {
            sp >>>= 0;
            Reflect.set(loadValue(sp + 8), getInt64(sp + 16), loadValue(sp + 24));
          }, "syscall/js.valueSetIndex"),
          // func valueCall(v ref, m string, args []ref) (ref, bool)
          "syscall/js.valueCall": /* @__PURE__ */ __name((sp) => {
            sp >>>= 0;
            try {
              const v = loadValue(sp + 8);
              const m = Reflect.get(v, loadString(sp + 16));
              const args = loadSliceOfValues(sp + 32);
              const result = Reflect.apply(m, v, args);
              sp = this._inst.exports.getsp() >>> 0;
              storeValue(sp + 56, result);
              this.mem.setUint8(sp + 64, 1);
            } catch (err) {
              sp = this._inst.exports.getsp() >>> 0;
              storeValue(sp + 56, err);
              this.mem.setUint8(sp + 64, 0);
            }
          }, "syscall/js.valueCall"),
          // func valueInvoke(v ref, args []ref) (ref, bool)
          "syscall/js.valueInvoke": /* @__PURE__ */ __name((sp) => {
            sp >>>= 0;
            try {
              const v = loadValue(sp + 8);
              const args = loadSliceOfValues(sp + 16);
              const result = Reflect.apply(v, void 0, args);
              sp = this._inst.exports.getsp() >>> 0;
              storeValue(sp + 40, result);
              this.mem.setUint8(sp + 48, 1);
            } catch (err) {
              sp = this._inst.exports.getsp() >>> 0;
              storeValue(sp + 40, err);
              this.mem.setUint8(sp + 48, 0);
            }
          }, "syscall/js.valueInvoke"),
          // func valueNew(v ref, args []ref) (ref, bool)
          "syscall/js.valueNew": /* @__PURE__ */ __name((sp) => {
            sp >>>= 0;
            try {
              const v = loadValue(sp + 8);
              const args = loadSliceOfValues(sp + 16);
              const result = Reflect.construct(v, args);
              sp = this._inst.exports.getsp() >>> 0;
              storeValue(sp + 40, result);
              this.mem.setUint8(sp + 48, 1);
            } catch (err) {
              sp = this._inst.exports.getsp() >>> 0;
              storeValue(sp + 40, err);
              this.mem.setUint8(sp + 48, 0);
            }
          }, "syscall/js.valueNew"),
          // func valueLength(v ref) int
          "syscall/js.valueLength": /* @__PURE__ */ __name((sp) => {
            sp >>>= 0;
            setInt64(sp + 16, parseInt(loadValue(sp + 8).length));
          }, "syscall/js.valueLength"),
          // valuePrepareString(v ref) (ref, int)
          "syscall/js.valuePrepareString": /* @__PURE__ */ __name((sp) => {
            sp >>>= 0;
            const str = encoder.encode(String(loadValue(sp + 8)));
            storeValue(sp + 16, str);
            setInt64(sp + 24, str.length);
          }, "syscall/js.valuePrepareString"),
          // valueLoadString(v ref, b []byte)
          "syscall/js.valueLoadString": /* @__PURE__ */ __name((sp) => {
            sp >>>= 0;
            const str = loadValue(sp + 8);
            loadSlice(sp + 16).set(str);
          }, "syscall/js.valueLoadString"),
          // func valueInstanceOf(v ref, t ref) bool
          "syscall/js.valueInstanceOf": /* @__PURE__ */ __name((sp) => {
            sp >>>= 0;
            this.mem.setUint8(sp + 24, loadValue(sp + 8) instanceof loadValue(sp + 16) ? 1 : 0);
          }, "syscall/js.valueInstanceOf"),
          // func copyBytesToGo(dst []byte, src ref) (int, bool)
          "syscall/js.copyBytesToGo": /* @__PURE__ */ __name((sp) => {
            sp >>>= 0;
            const dst = loadSlice(sp + 8);
            const src = loadValue(sp + 32);
            if (!(src instanceof Uint8Array || src instanceof Uint8ClampedArray)) {
              this.mem.setUint8(sp + 48, 0);
              return;
            }
            const toCopy = src.subarray(0, dst.length);
            dst.set(toCopy);
            setInt64(sp + 40, toCopy.length);
            this.mem.setUint8(sp + 48, 1);
          }, "syscall/js.copyBytesToGo"),
          // func copyBytesToJS(dst ref, src []byte) (int, bool)
          "syscall/js.copyBytesToJS": /* @__PURE__ */ __name((sp) => {
            sp >>>= 0;
            const dst = loadValue(sp + 8);
            const src = loadSlice(sp + 16);
            if (!(dst instanceof Uint8Array || dst instanceof Uint8ClampedArray)) {
              this.mem.setUint8(sp + 48, 0);
              return;
            }
            const toCopy = src.subarray(0, dst.length);
            dst.set(toCopy);
            setInt64(sp + 40, toCopy.length);
            this.mem.setUint8(sp + 48, 1);
          }, "syscall/js.copyBytesToJS"),
          "debug": /* @__PURE__ */ __name((value) => {
            console.log(value);
          }, "debug")
        }
      };
    }
    async run(instance, context) {
      if (!(instance instanceof WebAssembly.Instance)) {
        throw new Error("Go.run: WebAssembly.Instance expected");
      }
      this._inst = instance;
      this.mem = new DataView(this._inst.exports.mem.buffer);
      const globalProxy = new Proxy(globalThis, {
        get(target, prop) {
          if (prop === "context") {
            return context;
          }
          return Reflect.get(target, prop, target);
        }
      });
      this._values = [
        // JS values that Go currently has references to, indexed by reference id
        NaN,
        0,
        null,
        true,
        false,
        globalProxy,
        this
      ];
      this._goRefCounts = new Array(this._values.length).fill(Infinity);
      this._ids = /* @__PURE__ */ new Map([
        // mapping from JS values to reference ids
        [0, 1],
        [null, 2],
        [true, 3],
        [false, 4],
        [globalProxy, 5],
        [this, 6]
      ]);
      this._idPool = [];
      this.exited = false;
      let offset = 4096;
      const strPtr = /* @__PURE__ */ __name((str) => {
        const ptr = offset;
        const bytes = encoder.encode(str + "\0");
        new Uint8Array(this.mem.buffer, offset, bytes.length).set(bytes);
        offset += bytes.length;
        if (offset % 8 !== 0) {
          offset += 8 - offset % 8;
        }
        return ptr;
      }, "strPtr");
      const argc = this.argv.length;
      const argvPtrs = [];
      this.argv.forEach((arg) => {
        argvPtrs.push(strPtr(arg));
      });
      argvPtrs.push(0);
      const keys = Object.keys(this.env).sort();
      keys.forEach((key) => {
        argvPtrs.push(strPtr(`${key}=${this.env[key]}`));
      });
      argvPtrs.push(0);
      const argv = offset;
      argvPtrs.forEach((ptr) => {
        this.mem.setUint32(offset, ptr, true);
        this.mem.setUint32(offset + 4, 0, true);
        offset += 8;
      });
      const wasmMinDataAddr = 4096 + 8192;
      if (offset >= wasmMinDataAddr) {
        throw new Error("total length of command line and environment variables exceeds limit");
      }
      this._inst.exports.run(argc, argv);
      if (this.exited) {
        this._resolveExitPromise();
      }
      await this._exitPromise;
    }
    _resume() {
      if (this.exited) {
        throw new Error("Go program has already exited");
      }
      this._inst.exports.resume();
      if (this.exited) {
        this._resolveExitPromise();
      }
    }
    _makeFuncWrapper(id) {
      const go = this;
      return function() {
        const event = { id, this: this, args: arguments };
        go._pendingEvent = event;
        go._resume();
        return event.result;
      };
    }
  };
})();

// build/runtime.mjs
import { connect } from "cloudflare:sockets";
import mod from "./8d7a95a4c71c39e625ea521f1bf277be522131c8-app.wasm";
async function loadModule() {
  return mod;
}
__name(loadModule, "loadModule");
function createRuntimeContext({ env, ctx, binding }) {
  return {
    env,
    ctx,
    connect,
    binding
  };
}
__name(createRuntimeContext, "createRuntimeContext");

// vhost.mjs
import { DurableObject } from "cloudflare:workers";
var partBytes = 1 << 20;
var DIRECTORY = /^\/api\/(?:users|permissions|topic-permissions|vhosts)(?:\/|$)/;
var json = /* @__PURE__ */ __name((status, body) => new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json", "Cache-Control": "no-cache" } }), "json");
function parts(bytes) {
  const out = [];
  for (let i = 0; i < bytes.byteLength; i += partBytes) out.push(bytes.subarray(i, i + partBytes));
  return out.length ? out : [new Uint8Array(0)];
}
__name(parts, "parts");
function join(buffers) {
  if (buffers.length === 1) return new Uint8Array(buffers[0]);
  const out = new Uint8Array(buffers.reduce((n, b) => n + b.byteLength, 0));
  let at = 0;
  for (const b of buffers) {
    out.set(new Uint8Array(b), at);
    at += b.byteLength;
  }
  return out;
}
__name(join, "join");
function limit(env, name) {
  const v = env[name];
  if (v === void 0 || v === "") return 0;
  if (!/^[0-9]{1,15}$/.test(String(v))) throw new Error(`${name} must be a whole number of at most 15 digits, not ${JSON.stringify(v)}`);
  return Number(v);
}
__name(limit, "limit");
var Vhost = class extends DurableObject {
  static {
    __name(this, "Vhost");
  }
  constructor(ctx, env) {
    super(ctx, env);
    this.sql = ctx.storage.sql;
    this.tables();
    this.binding = null;
    this.starting = null;
  }
  tables() {
    this.sql.exec("CREATE TABLE IF NOT EXISTS meta (k TEXT PRIMARY KEY, v TEXT NOT NULL)");
    this.sql.exec(
      "CREATE TABLE IF NOT EXISTS batches (first INTEGER NOT NULL, last INTEGER NOT NULL, part INTEGER NOT NULL, data BLOB NOT NULL, PRIMARY KEY (first, part)) WITHOUT ROWID"
    );
    this.sql.exec("CREATE TABLE IF NOT EXISTS snap (part INTEGER PRIMARY KEY, data BLOB NOT NULL)");
  }
  meta(k) {
    const rows = [...this.sql.exec("SELECT v FROM meta WHERE k = ?", k)];
    return rows.length ? rows[0].v : null;
  }
  setMeta(k, v) {
    this.sql.exec("INSERT INTO meta (k, v) VALUES (?, ?) ON CONFLICT (k) DO UPDATE SET v = excluded.v", k, v);
  }
  // broker returns the running Go side, starting it (and restoring what
  // the storage holds) the first time; it throws when the storage does
  // not restore, saying why, and keeps the storage as it is.
  async broker() {
    if (this.binding) return this.binding;
    this.starting ??= this.go().finally(() => this.starting = null);
    return this.starting;
  }
  async go() {
    const vhost = this.meta("vhost");
    const mod2 = await loadModule();
    const go = new Go();
    let ready;
    const readyP = new Promise((resolve) => ready = resolve);
    const binding = {
      role: "vhost",
      held: /* @__PURE__ */ __name(() => this.held(), "held"),
      logBatches: /* @__PURE__ */ __name((after, n) => this.logBatches(after, n), "logBatches"),
      logAppend: /* @__PURE__ */ __name((first, last, batch) => this.logAppend(first, last, batch), "logAppend"),
      logSnapshot: /* @__PURE__ */ __name((pos, pieces) => this.logSnapshot(pos, pieces), "logSnapshot"),
      storageBytes: /* @__PURE__ */ __name(() => this.sql.databaseSize, "storageBytes"),
      wake: /* @__PURE__ */ __name((at) => at === null ? this.ctx.storage.deleteAlarm() : this.ctx.storage.setAlarm(at), "wake")
    };
    const instance = new WebAssembly.Instance(mod2, { ...go.importObject, workers: { ready: /* @__PURE__ */ __name(() => ready(), "ready") } });
    go.run(instance, createRuntimeContext({ env: this.env, ctx: this.ctx, binding }));
    await readyP;
    const config = {
      vhost,
      // The first administrator is the directory's; a vhost's object
      // gets its users from the directory (init).
      adminUser: vhost === "/" ? this.env.WARREN_ADMIN_USER ?? "" : "",
      adminPassword: vhost === "/" ? this.env.WARREN_ADMIN_PASSWORD ?? "" : "",
      maxQueues: limit(this.env, "WARREN_MAX_QUEUES"),
      maxMessages: limit(this.env, "WARREN_MAX_MESSAGES")
    };
    const reply2 = JSON.parse(binding.start(JSON.stringify(config)));
    if (reply2.error) throw new Error(`vhost ${vhost}: the object's storage does not restore: ${reply2.error}`);
    console.log(`vhost ${vhost}: started, ${this.held().logRecords} log record(s) after snapshot ${this.meta("snapPos") ?? 0}`);
    this.binding = binding;
    return binding;
  }
  // held says what the storage holds, for the broker's recovery.
  held() {
    const snap = [...this.sql.exec("SELECT data FROM snap ORDER BY part")].map((r) => r.data);
    const snapshotPos = Number(this.meta("snapPos") ?? 0);
    const [row] = [
      ...this.sql.exec(
        "SELECT max(last) AS last, coalesce(sum(CASE part WHEN 0 THEN last - first + 1 ELSE 0 END), 0) AS n, coalesce(sum(length(data)), 0) AS bytes FROM batches"
      )
    ];
    return {
      snapshot: snap.length ? snap.map((b) => new Uint8Array(b)) : null,
      snapshotPos,
      last: row.last ?? snapshotPos,
      logRecords: row.n,
      logBytes: row.bytes
    };
  }
  // logBatches returns up to n batches after position after, in order.
  logBatches(after, n) {
    const out = [];
    const firsts = [...this.sql.exec("SELECT first FROM batches WHERE first > ? AND part = 0 ORDER BY first LIMIT ?", after, n)];
    if (!firsts.length) return out;
    const upto = firsts[firsts.length - 1].first;
    for (const r of this.sql.exec("SELECT first, last, data FROM batches WHERE first > ? AND first <= ? ORDER BY first, part", after, upto)) {
      if (out.length && out[out.length - 1][0] === r.first) out[out.length - 1][2].push(r.data);
      else out.push([r.first, r.last, [r.data]]);
    }
    return out.map(([first, last, bufs]) => [first, last, join(bufs)]);
  }
  // logAppend writes one batch of records (a row, or a few for a batch
  // past partBytes): rows written are what the storage is billed by.
  logAppend(first, last, batch) {
    this.ctx.storage.transactionSync(() => {
      parts(batch).forEach((p, j) => this.sql.exec("INSERT INTO batches (first, last, part, data) VALUES (?, ?, ?, ?)", first, last, j, p));
    });
  }
  logSnapshot(pos, pieces) {
    this.ctx.storage.transactionSync(() => {
      this.sql.exec("DELETE FROM snap");
      let part = 0;
      for (const piece of pieces) for (const p of parts(piece)) this.sql.exec("INSERT INTO snap (part, data) VALUES (?, ?)", part++, p);
      this.sql.exec("DELETE FROM batches WHERE last <= ?", pos);
      this.setMeta("snapPos", String(pos));
    });
  }
  async alarm() {
    if (this.meta("vhost") === null) return;
    console.log(`vhost ${this.meta("vhost")}: woken by its alarm`);
    const b = await this.broker();
    await b.tick();
  }
  async fetch(req) {
    const url = new URL(req.url);
    const vhost = req.headers.get("X-Warren-Vhost");
    if (url.pathname.startsWith("/_vhost/")) return this.internal(req, url.pathname.slice("/_vhost/".length), vhost);
    if (this.meta("vhost") === null) {
      if (vhost !== "/") return new Response(null, { status: 404, headers: { "X-Warren-No-Vhost": "1" } });
      this.setMeta("vhost", vhost);
    }
    let b;
    try {
      b = await this.broker();
    } catch (e) {
      console.log(e.message);
      return json(503, { error: "service_unavailable", reason: e.message });
    }
    if (url.pathname.startsWith("/ws/")) return this.amqp(req, b);
    const headers = {};
    for (const [k, v] of req.headers) headers[k] = v;
    const body = req.method === "GET" || req.method === "HEAD" ? "" : await req.text();
    const res = await b.http(req.method, url.pathname + url.search, headers, body, req.headers.get("CF-Connecting-IP") ?? "127.0.0.1");
    if (this.meta("vhost") === "/" && req.method !== "GET" && req.method !== "HEAD" && res.status < 300 && DIRECTORY.test(url.pathname)) {
      await this.spread(b, req.method, url.pathname);
    }
    return new Response(req.method === "HEAD" ? null : res.body, { status: res.status, headers: res.headers });
  }
  // spread is the directory's part after a change it made (the object
  // of "/"): a vhost created or deleted gets its object made or its
  // storage deleted, and every other vhost's object its copy of the users
  // and permissions, before the change is answered: a deleted user's
  // connections are closed everywhere, a new user may log in to every
  // vhost they have permissions in, once the caller has the answer.
  async spread(b, method, path) {
    const m = /^\/api\/vhosts\/([^/]+)\/?$/.exec(path);
    if (m && method === "DELETE") {
      const name = decodeURIComponent(m[1]);
      await this.vhostStub(name).fetch("https://vhost/_vhost/end", { method: "POST" });
      return;
    }
    const one = m ?? /^\/api\/(?:topic-)?permissions\/([^/]+)\//.exec(path);
    const names = one ? [decodeURIComponent(one[1])] : JSON.parse(b.vhosts());
    await Promise.all(
      names.filter((v) => v !== "/").map(async (name) => {
        const res = await this.vhostStub(name).fetch("https://vhost/_vhost/init", { method: "POST", body: b.authCopy(name) });
        if (res.status >= 300) console.log(`vhost ${name}: the directory's change did not reach it: ${await res.text()}`);
      })
    );
  }
  vhostStub(name) {
    return {
      fetch: /* @__PURE__ */ __name((url, init) => {
        const r = new Request(url, init);
        r.headers.set("X-Warren-Vhost", name);
        return this.env.VHOSTS.get(this.env.VHOSTS.idFromName(name)).fetch(r);
      }, "fetch")
    };
  }
  // internal answers the directory: init makes the vhost here (if it is
  // not yet) and gives it the users and permissions of the body; end
  // deletes it, storage and all.
  async internal(req, what, vhost) {
    if (what === "init") {
      if (this.meta("vhost") === null) this.setMeta("vhost", vhost);
      let b;
      try {
        b = await this.broker();
      } catch (e) {
        return json(503, { error: "service_unavailable", reason: e.message });
      }
      const err = await b.authApply(await req.text());
      return err === null ? new Response(null, { status: 204 }) : json(500, { error: "internal_error", reason: err });
    }
    if (what === "end") {
      if (this.binding) {
        const b = this.binding;
        this.binding = null;
        await b.remove();
      }
      await this.ctx.storage.deleteAlarm();
      await this.ctx.storage.deleteAll();
      console.log(`vhost ${vhost}: deleted, with its storage`);
      this.tables();
      return new Response(null, { status: 204 });
    }
    return json(404, { error: "not_found", reason: "no such internal endpoint" });
  }
  // amqp serves an AMQP client's socket in the vhost's broker.
  amqp(req, b) {
    if (req.headers.get("Upgrade")?.toLowerCase() !== "websocket") {
      return json(426, { error: "upgrade_required", reason: "AMQP here is over WebSocket" });
    }
    const pair = new WebSocketPair();
    const ws = pair[1];
    ws.accept();
    ws.binaryType = "arraybuffer";
    const h = b.amqpOpen(ws, req.headers.get("CF-Connecting-IP") ?? "edge");
    ws.addEventListener("message", (e) => {
      if (typeof e.data === "string") ws.close(1003, "AMQP over WebSocket is binary messages");
      else b.amqpMessage(h, new Uint8Array(e.data));
    });
    ws.addEventListener("close", () => b.amqpGone(h));
    ws.addEventListener("error", () => b.amqpGone(h));
    const offered = (req.headers.get("Sec-WebSocket-Protocol") ?? "").split(",").map((s) => s.trim());
    return new Response(null, { status: 101, webSocket: pair[0], headers: offered.includes("amqp") ? { "Sec-WebSocket-Protocol": "amqp" } : {} });
  }
};

// entry.mjs
var json2 = /* @__PURE__ */ __name((status, body) => new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json", "Cache-Control": "no-cache" } }), "json");
var IN_VHOST = /^\/api\/(?:exchanges|queues|bindings|policies|operator-policies|consumers|definitions)\/([^/]+)(?:\/.*)?$/;
var VHOST_LISTS = /^\/api\/vhosts\/([^/]+)\/(?:connections|channels)\/?$/;
var ACROSS = /^\/api\/(exchanges|queues|bindings|policies|operator-policies|consumers|connections|channels)\/?$/;
var AMQP = /^\/ws\/amqp(?:\/([^/]+))?\/?$/;
function vhostName(segment) {
  try {
    return decodeURIComponent(segment);
  } catch {
    return null;
  }
}
__name(vhostName, "vhostName");
async function toVhost(env, vhost, req) {
  const res = await stub(env, vhost).fetch(req.clone());
  if (res.headers.get("X-Warren-No-Vhost") !== "1" || vhost === "/") return res;
  return stub(env, "/").fetch(req);
}
__name(toVhost, "toVhost");
function stub(env, vhost) {
  return { fetch: /* @__PURE__ */ __name((req, init) => env.VHOSTS.get(env.VHOSTS.idFromName(vhost)).fetch(withVhost(req, init, vhost)), "fetch") };
}
__name(stub, "stub");
function withVhost(req, init, vhost) {
  const r = new Request(req, init);
  r.headers.set("X-Warren-Vhost", vhost);
  return r;
}
__name(withVhost, "withVhost");
async function across(env, req, url, kind) {
  const vurl = new URL(req.url);
  vurl.pathname = "/api/vhosts";
  vurl.search = "";
  const listed = await stub(env, "/").fetch(new Request(vurl, { headers: req.headers }));
  if (listed.status !== 200) return listed;
  const vhosts = (await listed.json()).map((v) => v.name);
  const answers = await Promise.all(
    vhosts.map((name) => {
      const u = new URL(url);
      u.pathname = kind === "connections" || kind === "channels" ? `/api/vhosts/${encodeURIComponent(name)}/${kind}` : `/api/${kind}/${encodeURIComponent(name)}`;
      return toVhost(env, name, new Request(u, { headers: req.headers }));
    })
  );
  const items = [];
  for (const res of answers) {
    if (res.status !== 200) continue;
    const body = await res.json();
    items.push(...Array.isArray(body) ? body : body.items ?? []);
  }
  return json2(200, items);
}
__name(across, "across");
var entry_default = {
  async fetch(req, env) {
    const refused = refuse(req);
    if (refused) return refused;
    const url = new URL(req.url);
    let m;
    if (m = AMQP.exec(url.pathname)) {
      const vhost = m[1] === void 0 ? "/" : vhostName(m[1]);
      if (vhost === null) return json2(400, { error: "bad_request", reason: "the vhost in the path is not URL-encoded text" });
      return toVhost(env, vhost, req);
    }
    if (!url.pathname.startsWith("/api/")) {
      return json2(404, { error: "not_found", reason: "Warren's broker at the edge answers /api/ (the management API) and /ws/amqp/{vhost} (AMQP over WebSocket)" });
    }
    if (m = IN_VHOST.exec(url.pathname) ?? VHOST_LISTS.exec(url.pathname)) {
      const vhost = vhostName(m[1]);
      if (vhost === null) return json2(400, { error: "bad_request", reason: "the vhost in the path is not URL-encoded text" });
      return toVhost(env, vhost, req);
    }
    if ((m = ACROSS.exec(url.pathname)) && req.method === "GET") return across(env, req, url, m[1]);
    if (url.pathname.replace(/\/$/, "") === "/api/definitions" && req.method !== "GET" && req.method !== "HEAD") {
      return json2(400, {
        error: "bad_request",
        reason: "at the edge, definitions are imported a vhost at a time (POST /api/definitions/{vhost}), users and permissions through /api/users and /api/permissions"
      });
    }
    return stub(env, "/").fetch(req);
  }
};

// ../../node_modules/wrangler/templates/middleware/middleware-ensure-req-body-drained.ts
var drainBody = /* @__PURE__ */ __name(async (request, env, _ctx, middlewareCtx) => {
  try {
    return await middlewareCtx.next(request, env);
  } finally {
    try {
      if (request.body !== null && !request.bodyUsed) {
        const reader = request.body.getReader();
        while (!(await reader.read()).done) {
        }
      }
    } catch (e) {
      console.error("Failed to drain the unused request body.", e);
    }
  }
}, "drainBody");
var middleware_ensure_req_body_drained_default = drainBody;

// ../../node_modules/wrangler/templates/middleware/middleware-miniflare3-json-error.ts
function reduceError(e) {
  return {
    name: e?.name,
    message: e?.message ?? String(e),
    stack: e?.stack,
    cause: e?.cause === void 0 ? void 0 : reduceError(e.cause)
  };
}
__name(reduceError, "reduceError");
var jsonError = /* @__PURE__ */ __name(async (request, env, _ctx, middlewareCtx) => {
  try {
    return await middlewareCtx.next(request, env);
  } catch (e) {
    const error = reduceError(e);
    return Response.json(error, {
      status: 500,
      headers: { "MF-Experimental-Error-Stack": "true" }
    });
  }
}, "jsonError");
var middleware_miniflare3_json_error_default = jsonError;

// .wrangler/tmp/bundle-pgSI3b/middleware-insertion-facade.js
var __INTERNAL_WRANGLER_MIDDLEWARE__ = [
  middleware_ensure_req_body_drained_default,
  middleware_miniflare3_json_error_default
];
var middleware_insertion_facade_default = entry_default;

// ../../node_modules/wrangler/templates/middleware/common.ts
var __facade_middleware__ = [];
function __facade_register__(...args) {
  __facade_middleware__.push(...args.flat());
}
__name(__facade_register__, "__facade_register__");
function __facade_invokeChain__(request, env, ctx, dispatch, middlewareChain) {
  const [head, ...tail] = middlewareChain;
  const middlewareCtx = {
    dispatch,
    next(newRequest, newEnv) {
      return __facade_invokeChain__(newRequest, newEnv, ctx, dispatch, tail);
    }
  };
  return head(request, env, ctx, middlewareCtx);
}
__name(__facade_invokeChain__, "__facade_invokeChain__");
function __facade_invoke__(request, env, ctx, dispatch, finalMiddleware) {
  return __facade_invokeChain__(request, env, ctx, dispatch, [
    ...__facade_middleware__,
    finalMiddleware
  ]);
}
__name(__facade_invoke__, "__facade_invoke__");

// .wrangler/tmp/bundle-pgSI3b/middleware-loader.entry.ts
var __Facade_ScheduledController__ = class ___Facade_ScheduledController__ {
  constructor(scheduledTime, cron, noRetry) {
    this.scheduledTime = scheduledTime;
    this.cron = cron;
    this.#noRetry = noRetry;
  }
  static {
    __name(this, "__Facade_ScheduledController__");
  }
  #noRetry;
  noRetry() {
    if (!(this instanceof ___Facade_ScheduledController__)) {
      throw new TypeError("Illegal invocation");
    }
    this.#noRetry();
  }
};
function wrapExportedHandler(worker) {
  if (__INTERNAL_WRANGLER_MIDDLEWARE__ === void 0 || __INTERNAL_WRANGLER_MIDDLEWARE__.length === 0) {
    return worker;
  }
  for (const middleware of __INTERNAL_WRANGLER_MIDDLEWARE__) {
    __facade_register__(middleware);
  }
  const fetchDispatcher = /* @__PURE__ */ __name(function(request, env, ctx) {
    if (worker.fetch === void 0) {
      throw new Error("Handler does not export a fetch() function.");
    }
    return worker.fetch(request, env, ctx);
  }, "fetchDispatcher");
  return {
    ...worker,
    fetch(request, env, ctx) {
      const dispatcher = /* @__PURE__ */ __name(function(type, init) {
        if (type === "scheduled" && worker.scheduled !== void 0) {
          const controller = new __Facade_ScheduledController__(
            Date.now(),
            init.cron ?? "",
            () => {
            }
          );
          return worker.scheduled(controller, env, ctx);
        }
      }, "dispatcher");
      return __facade_invoke__(request, env, ctx, dispatcher, fetchDispatcher);
    }
  };
}
__name(wrapExportedHandler, "wrapExportedHandler");
function wrapWorkerEntrypoint(klass) {
  if (__INTERNAL_WRANGLER_MIDDLEWARE__ === void 0 || __INTERNAL_WRANGLER_MIDDLEWARE__.length === 0) {
    return klass;
  }
  for (const middleware of __INTERNAL_WRANGLER_MIDDLEWARE__) {
    __facade_register__(middleware);
  }
  return class extends klass {
    #fetchDispatcher = /* @__PURE__ */ __name((request, env, ctx) => {
      this.env = env;
      this.ctx = ctx;
      if (super.fetch === void 0) {
        throw new Error("Entrypoint class does not define a fetch() function.");
      }
      return super.fetch(request);
    }, "#fetchDispatcher");
    #dispatcher = /* @__PURE__ */ __name((type, init) => {
      if (type === "scheduled" && super.scheduled !== void 0) {
        const controller = new __Facade_ScheduledController__(
          Date.now(),
          init.cron ?? "",
          () => {
          }
        );
        return super.scheduled(controller);
      }
    }, "#dispatcher");
    fetch(request) {
      return __facade_invoke__(
        request,
        this.env,
        this.ctx,
        this.#dispatcher,
        this.#fetchDispatcher
      );
    }
  };
}
__name(wrapWorkerEntrypoint, "wrapWorkerEntrypoint");
var WRAPPED_ENTRY;
if (typeof middleware_insertion_facade_default === "object") {
  WRAPPED_ENTRY = wrapExportedHandler(middleware_insertion_facade_default);
} else if (typeof middleware_insertion_facade_default === "function") {
  WRAPPED_ENTRY = wrapWorkerEntrypoint(middleware_insertion_facade_default);
}
var middleware_loader_entry_default = WRAPPED_ENTRY;
export {
  Vhost,
  __INTERNAL_WRANGLER_MIDDLEWARE__,
  middleware_loader_entry_default as default,
  stub,
  toVhost
};
//# sourceMappingURL=entry.js.map
