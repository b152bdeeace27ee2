#!/usr/bin/env python3
"""Generate libcpath's MPI wrappers from wrappers/mpi_functions.spec.

Writes, into an output directory:
  call_table.h / call_table.cpp   call ids and the per-call metadata the decoder and analyses use
  c_wrappers.cpp                  one C wrapper per entry (MPI_Send -> PMPI_Send)
  fortran_wrappers.cpp            one Fortran wrapper per entry, exported under the four
                                  manglings (mpi_send_, mpi_send__, mpi_send, MPI_SEND); it calls
                                  MPI's own Fortran binding (pmpi_send_), converting only what
                                  the record needs, so buffers, MPI_IN_PLACE and MPI_BOTTOM pass
                                  through untouched; and the `use mpi_f08` procedures: Open
                                  MPI's (mpi_send_f08_ -> pmpi_send_f08_) and MPICH's
                                  (mpi_send_f08ts_ -> the next definition, dlsym(RTLD_NEXT))
  wrapped_functions.md            the list of wrapped functions (coverage made visible)

Standard library only: it runs inside CMake on machines with nothing but python3.
"""
import argparse
import os
import re
import sys

# ---------------------------------------------------------------------------------------------
# Spec parsing

FIELD_ORDER = ["peer", "tag", "peer2", "tag2", "comm", "root", "bytes", "req", "req2",
               "reqlist", "completions", "flag", "newcomm", "aux", "obj", "polls"]

# Completion variants that may return without completing a request: their records also say
# which requests they polled (docs/pag-rules.md rule 5).
POLL_HOWS = ("test", "testany", "testall", "testsome", "getstatus", "parrived")

KINDS = {"send", "recv", "sendrecv", "probe", "mrecv", "start", "complete", "request_free",
         "cancel", "coll", "comm_new", "comm_free", "init", "finalize", "abort", "pcontrol",
         "rma", "rma_sync", "io", "other", "gap", "pready"}

# Fortran integers of kind MPI_ADDRESS_KIND, MPI_OFFSET_KIND or MPI_COUNT_KIND.
WIDE_INTS = ("MPI_Aint", "MPI_Offset", "MPI_Count")

HANDLE_TYPES = {"MPI_Comm": "Comm", "MPI_Datatype": "Type", "MPI_Request": "Request",
                "MPI_Group": "Group", "MPI_Info": "Info", "MPI_Win": "Win", "MPI_File": "File",
                "MPI_Message": "Message", "MPI_Op": "Op", "MPI_Errhandler": "Errhandler"}


class Param:
    def __init__(self, text):
        self.text = text.strip()
        t = self.text
        self.is_varargs = t == "..."
        if self.is_varargs:
            self.name, self.base, self.ptr, self.array = "", "", 0, False
            return
        m = re.match(r"^(.*?)([A-Za-z_]\w*)\s*((?:\[\s*\d*\s*\])*)$", t)
        if not m:
            sys.exit("cannot parse parameter: " + t)
        ctype, self.name, arr = m.group(1).strip(), m.group(2), m.group(3)
        self.const = "const" in ctype.split()
        self.ptr = ctype.count("*")
        self.base = ctype.replace("const", "").replace("*", "").strip()
        self.array = bool(arr)
        self.array_suffix = arr
        self.ctype = ctype

    @property
    def is_pointer_like(self):
        return self.ptr > 0 or self.array

    def c_decl(self):
        return self.text


class Entry:
    def __init__(self, kind, name, params, bindings, attrs):
        self.kind, self.name, self.params, self.b, self.attrs = kind, name, params, bindings, attrs
        self.short = name[4:]  # without MPI_
        self.pmap = {p.name: p for p in params}
        self.call_id = 0

    def fields(self):
        b, k = self.b, self.kind
        f = set()
        for role in ("peer", "tag", "peer2", "tag2", "comm", "root", "bytes"):
            if role in b:
                f.add(role)
        if k == "gap":
            f.update(("newcomm", "obj", "aux"))
        if k == "complete":
            f.add("completions")
            if self.attrs.get("how") in POLL_HOWS:
                f.add("polls")
        elif k == "start" and "reqs" in b:
            f.add("reqlist")
        elif k == "rma_sync" and "group" in b:
            f.add("reqlist")  # the group's world ranks (rma_group_list)
        elif k == "mrecv":
            f.add("req")  # the message handle
            if "req" in b:
                f.add("req2")
        elif "req" in b or "msg" in b:
            f.add("req")  # (pready: the partitioned request)
            if k == "start":
                f.add("req2")  # the handle after the call, when the MPI replaced it
        if k in ("probe", "rma_sync") and "flag" in b:
            f.add("flag")
        if k == "comm_new":
            f.add("newcomm")
        if k in ("pcontrol", "init"):
            f.add("aux")
        if "obj" in b:
            f.add("obj")
        return [x for x in FIELD_ORDER if x in f]


def parse_spec(path):
    entries = []
    text = open(path).read().splitlines()
    cur = None
    for raw in text:
        line = raw.split("#", 1)[0].rstrip()
        if not line.strip():
            continue
        if raw[0].isspace():
            if cur is None:
                sys.exit("continuation line without an entry: " + raw)
            cur[2].append(line.strip())
            continue
        m = re.match(r"^(\w+)\s+(MPI_\w+)\((.*)\)\s*(.*)$", line)
        if not m:
            sys.exit("cannot parse spec line: " + raw)
        cur = [m.group(1), m.group(2), [m.group(4)] if m.group(4) else [], m.group(3)]
        entries.append(cur)
    out = []
    for kind, name, binds, args in entries:
        if kind not in KINDS:
            sys.exit("%s: unknown kind %s" % (name, kind))
        params = [Param(a) for a in split_args(args)] if args.strip() not in ("", "void") else []
        bindings, attrs = {}, {}
        for tok in " ".join(binds).split():
            k, _, v = tok.partition("=")
            if k in ("mode", "persistent", "how", "pattern", "inter", "group_only", "since", "pscw", "flush", "partitioned", "grequest"):
                attrs[k] = v
            else:
                bindings[k] = v
        e = Entry(kind, name, params, bindings, attrs)
        for role, expr in bindings.items():
            if role == "bytes":
                continue
            if expr.lstrip("*") not in e.pmap:
                sys.exit("%s: binding %s=%s names no argument" % (name, role, expr))
        out.append(e)
    # Not an MPI function: the record that counts collective calls made while recording was off
    # (paused or stopped), so collective instances keep their sequence numbers (docs/pag-rules.md
    # rule 8). It has no wrapper.
    out.append(Entry("gap", "CPATH_Gap", [], {}, {}))
    # MPI-4.0's large-count twins (MPI_Send_c, ...), derived from the entries, after every spec
    # entry so that the ids above do not move.
    out += [c for c in (large_count_variant(e) for e in out) if c is not None]
    for i, e in enumerate(out):
        e.call_id = i + 1
    return out


LARGE_COUNT_KINDS = ("send", "recv", "sendrecv", "coll", "rma", "io", "mrecv", "other")
COUNT_NAMES = ("count", "sendcount", "recvcount", "origin_count", "target_count", "result_count")


def large_count_variant(e):
    """The MPI-4.0 large-count variant MPI_X_c of entry e (counts MPI_Count, displacements
    MPI_Aint), or None when X has none. The compiler checks the prototype against mpi.h."""
    if e.kind not in LARGE_COUNT_KINDS or e.name.endswith("_c"):
        return None
    changed, params = False, []
    for p in e.params:
        t = p.text
        const = "const " if p.const else ""
        if p.base == "int" and not p.array and not p.ptr and p.name in COUNT_NAMES:
            t = "MPI_Count %s" % p.name
        elif p.base == "int" and p.array and p.name.endswith("counts"):
            t = "%sMPI_Count %s[]" % (const, p.name)
        elif p.base == "int" and p.array and p.name.endswith("displs"):
            t = "%sMPI_Aint %s[]" % (const, p.name)
        elif p.base == "int" and p.name == "disp_unit" and e.short.startswith("Win_"):
            t = "MPI_Aint disp_unit"
        elif p.base == "int" and p.name == "size" and e.short.startswith("Buffer_"):
            t = "MPI_Count %ssize" % ("*" if p.ptr else "")
        if t != p.text:
            changed = True
        params.append(Param(t))
    if not changed:
        return None
    attrs = dict(e.attrs)
    attrs["since"] = "4.0"
    return Entry(e.kind, e.name + "_c", params, dict(e.b), attrs)


def split_args(s):
    parts, depth, cur = [], 0, ""
    for ch in s:
        if ch == "," and depth == 0:
            parts.append(cur)
            cur = ""
            continue
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        cur += ch
    if cur.strip():
        parts.append(cur)
    return parts


# ---------------------------------------------------------------------------------------------
# Flavours: how an argument is read in the C wrapper and in the Fortran wrapper.

class CFlavour:
    fortran = False

    def __init__(self, e):
        self.e = e

    def val(self, name):
        """Value of an argument as a C value (int or C handle); int outputs are read back."""
        p = self.e.pmap[name]
        if p.base == "int" and p.ptr == 1 and not p.array:
            return "(*%s)" % name
        return name

    def handle(self, name, base):
        return name

    def int_array(self, name):
        return name

    def type_array(self, name):
        return name

    def deref_handle(self, name):
        """Value behind a pointer-to-handle argument (MPI_Comm *comm) as a C handle."""
        return "(*%s)" % name

    def deref_int(self, name):
        return "(*%s)" % name


class FFlavour(CFlavour):
    fortran = True
    # "" for the mpif.h / use mpi bindings, "_f08" for Open MPI's use mpi_f08 symbols.
    suffix = ""

    def __init__(self, e, suffix=""):
        CFlavour.__init__(self, e)
        self.suffix = suffix

    def pmpi(self):
        return "pmpi_%s%s_" % (self.e.short.lower(), self.suffix)

    def rc_from_ierr(self):
        # mpi_f08's IERROR is OPTIONAL: absent means a NULL pointer.
        return "(ierr ? static_cast<int>(*ierr) : MPI_SUCCESS)" if self.suffix else "static_cast<int>(*ierr)"

    def status_ignored(self, name, many=False):
        return "%s == %s" % (name, "MPI_F_STATUSES_IGNORE" if many else "MPI_F_STATUS_IGNORE")

    def val(self, name):
        p = self.e.pmap[name]
        if p.base in HANDLE_TYPES:
            return "MPI_%s_f2c(*%s)" % (HANDLE_TYPES[p.base], name)
        if p.base in WIDE_INTS:
            return "(*%s)" % name  # large counts: never through int
        return "static_cast<int>(*%s)" % name

    def int_array(self, name):
        if self.e.pmap[name].base in WIDE_INTS:
            return name
        return "reinterpret_cast<const int*>(%s)" % name

    def deref_handle(self, name):
        p = self.e.pmap[name]
        return "MPI_%s_f2c(*%s)" % (HANDLE_TYPES[p.base], name)

    def deref_int(self, name):
        return "static_cast<int>(*%s)" % name


class F08NextFlavour(FFlavour):
    """MPICH's `use mpi_f08` procedures (mpi_send_f08ts_, mpi_barrier_f08_, their _large_
    twins): no profiling symbol to call, so the wrapper calls the definition that follows
    libcpath's (dlsym(RTLD_NEXT)), resolved on the first call into a function-local static
    named cpath_next. IERROR is OPTIONAL; statuses are TYPE(MPI_Status), five integers laid out
    like the mpif.h status, whose IGNORE objects have addresses of their own."""

    def __init__(self, e):
        FFlavour.__init__(self, e, "_f08")

    def pmpi(self):
        return "cpath_next"

    def status_ignored(self, name, many=False):
        return "static_cast<const void*>(%s) == static_cast<const void*>(%s)" % (
            name, "MPI_F08_STATUSES_IGNORE" if many else "MPI_F08_STATUS_IGNORE")


# ---------------------------------------------------------------------------------------------
# bytes expressions: tiny grammar
#   expr   := cond | prod
#   cond   := 'isroot' '?' prod ':' prod
#   prod   := factor ('*' factor)*
#   factor := ident | 'size' | 'indeg' | func '(' ident (',' ident)? ')'

def compile_bytes(e, fl, expr):
    comm = fl.val(e.b["comm"]) if "comm" in e.b else None

    def prod(s):
        out = []
        for f in s.split("*"):
            out.append(factor(f.strip()))
        return " * ".join(out)

    def factor(f):
        m = re.match(r"^(\w+)\((\w+)(?:,(\w+))?\)$", f)
        if m:
            fn, a, b = m.groups()
            if fn in ("sum", "sumin"):
                n = "cpath::coll_size(%s)" % comm if fn == "sum" else "cpath::in_degree(%s)" % comm
                return "cpath::sum_counts(%s, %s)" % (fl.int_array(a), n)
            if fn in ("sumw", "suminw"):
                n = "cpath::coll_size(%s)" % comm if fn == "sumw" else "cpath::in_degree(%s)" % comm
                helper = "cpath::sum_typed_f" if fl.fortran else "cpath::sum_typed"
                return "%s(%s, %s, %s)" % (helper, fl.int_array(a), b, n)
            sys.exit("%s: unknown bytes function %s" % (e.name, fn))
        if f == "size":
            return "cpath::coll_size(%s)" % comm
        if f == "indeg":
            return "cpath::in_degree(%s)" % comm
        p = e.pmap.get(f)
        if p is None:
            sys.exit("%s: bytes names unknown argument %s" % (e.name, f))
        if p.base == "MPI_Datatype":
            return "cpath::type_size(ts, %s)" % fl.val(f)
        return "static_cast<uint64_t>(%s)" % fl.val(f)

    m = re.match(r"^isroot\?(.*):(.*)$", expr)
    if m:
        root = fl.val(e.b["root"])
        return "(cpath::is_root(%s, %s) ? (%s) : (%s))" % (comm, root, prod(m.group(1)), prod(m.group(2)))
    return prod(expr)


# ---------------------------------------------------------------------------------------------
# Code generation

def c_params(e):
    return ", ".join(p.c_decl() for p in e.params) if e.params else "void"


def c_args(e):
    return ", ".join(p.name for p in e.params if not p.is_varargs)


def f_params(e):
    """Fortran binding parameters: every argument by reference, then ierr, then string lengths."""
    ps, lens = [], []
    for p in e.params:
        if p.is_varargs:
            continue
        if p.base == "char":
            ps.append("char *%s" % p.name)
            lens.append("size_t %s_len" % p.name)
        elif p.base == "void":
            ps.append("void *%s" % p.name)
        elif p.base in ("MPI_Aint", "MPI_Offset", "MPI_Count"):
            ps.append("%s *%s" % (p.base, p.name))
        else:
            ps.append("MPI_Fint *%s" % p.name)
    ps.append("MPI_Fint *ierr")
    return ps + lens


def f_args(e):
    names, lens = [], []
    for p in e.params:
        if p.is_varargs:
            continue
        names.append(p.name)
        if p.base == "char":
            lens.append(p.name + "_len")
    return names + ["ierr"] + lens


def fortran_params_override(e, fl=None):
    """Fortran bindings whose argument list is not derived from the C one."""
    if e.name == "MPI_Pcontrol" and isinstance(fl, F08NextFlavour):
        # MPICH's mpi_pcontrol_f08_ takes an OPTIONAL IERROR after LEVEL.
        return ["MPI_Fint *level", "MPI_Fint *ierr"], ["level", "ierr"]
    if e.name == "MPI_Init":
        return ["MPI_Fint *ierr"], ["ierr"]
    if e.name == "MPI_Init_thread":
        return ["MPI_Fint *required", "MPI_Fint *provided", "MPI_Fint *ierr"], ["required", "provided", "ierr"]
    if e.name == "MPI_Pcontrol":
        # MPI_PCONTROL(LEVEL): the only Fortran binding without an IERROR argument.
        return ["MPI_Fint *level"], ["level"]
    return None


class Gen:
    """Emits one wrapper body (C or Fortran flavour) for one spec entry."""

    def __init__(self, e, fl):
        self.e, self.fl = e, fl
        self.pre, self.post_fields, self.after = [], [], []

    # -- the PMPI call, in each flavour
    def pmpi_call(self, args_override=None):
        e = self.e
        if self.fl.fortran:
            ov = fortran_params_override(e, self.fl)
            args = ov[1] if ov else f_args(e)
            if args_override:
                args = [args_override.get(a, a) for a in args]
            if "ierr" not in args:
                return "%s(%s); const int rc = MPI_SUCCESS;" % (self.fl.pmpi(), ", ".join(args))
            return "%s(%s); const int rc = %s;" % (self.fl.pmpi(), ", ".join(args), self.fl.rc_from_ierr())
        args = [p.name for p in e.params if not p.is_varargs]
        if args_override:
            args = [args_override.get(a, a) for a in args]
        return "const int rc = PMPI_%s(%s);" % (e.short, ", ".join(args))

    def passthrough(self):
        e = self.e
        if self.fl.fortran:
            ov = fortran_params_override(e, self.fl)
            args = ov[1] if ov else f_args(e)
            return "{ %s(%s); return; }" % (self.fl.pmpi(), ", ".join(args))
        return "return PMPI_%s(%s);" % (e.short, c_args(e))

    def ret(self):
        return "return;" if self.fl.fortran else "return rc;"

    # -- status handling: make sure we have a status to read even under STATUS_IGNORE
    def status_prep(self, name):
        if self.fl.fortran:
            self.pre.append("MPI_Fint cpath_fst[cpath::kFStatusMax];")
            self.pre.append("MPI_Fint* const cpath_fs = (%s) ? cpath_fst : %s;" % (self.fl.status_ignored(name), name))
            return {name: "cpath_fs"}, "MPI_Status cpath_st; cpath::status_from_fortran(cpath_fs, rc, &cpath_st);", "(&cpath_st)"
        self.pre.append("MPI_Status cpath_st;")
        self.pre.append("MPI_Status* const cpath_s = (%s == MPI_STATUS_IGNORE) ? &cpath_st : %s;" % (name, name))
        return {name: "cpath_s"}, "", "cpath_s"

    def statuses_prep(self, name, n):
        if self.fl.fortran:
            self.pre.append("MPI_Fint* const cpath_fss = (%s) ? ts->scratch.fstatuses(%s) : %s;"
                            % (self.fl.status_ignored(name, True), n, name))
            return {name: "cpath_fss"}, "cpath::StatusesView cpath_sv(cpath_fss, rc)"
        self.pre.append("MPI_Status* const cpath_ss = (%s == MPI_STATUSES_IGNORE) ? ts->scratch.statuses(%s) : %s;"
                        % (name, n, name))
        return {name: "cpath_ss"}, "cpath::StatusesView cpath_sv(cpath_ss)"

    def request_i(self, arr):
        """Request i of an array argument. Error-checking test suites pass NULL arrays on
        purpose: MPI returns an error code, so the wrapper must not fault reading them."""
        return "MPI_Request_f2c(%s[i])" % arr if self.fl.fortran else "(%s ? %s[i] : MPI_REQUEST_NULL)" % (arr, arr)

    def copy_requests(self, arr, n, slots=1):
        """The n handles before the call into cpath_h, which has room for slots * n."""
        size = n if slots == 1 else "%d * (%s)" % (slots, n)
        self.pre.append("uint64_t* const cpath_h = ts->scratch.handles(%s);" % size)
        self.pre.append("for (int i = 0; i < %s; ++i) cpath_h[i] = cpath::bits_Request(%s);" % (n, self.request_i(arr)))

    def req_bits_in(self, name):
        """Bits of a request or message argument, read before the call may reset it."""
        p = self.e.pmap[name]
        t = HANDLE_TYPES[p.base]
        if self.fl.fortran:
            return "cpath::bits_%s(MPI_%s_f2c(*%s))" % (t, t, name)
        if p.ptr:
            return "(%s ? cpath::bits_%s(*%s) : 0)" % (name, t, name)
        return "cpath::bits_%s(%s)" % (t, name)

    def handle_out(self, name):
        """Bits of a handle written by the call (MPI_Request *request, MPI_Message *msg)."""
        p = self.e.pmap[name]
        t = HANDLE_TYPES[p.base]
        if self.fl.fortran:
            return "cpath::bits_%s(MPI_%s_f2c(*%s))" % (t, t, name)
        return "cpath::bits_%s(*%s)" % (t, name)

    def body(self):
        e, fl, b, k = self.e, self.fl, self.e.b, self.e.kind
        lines = []
        override = {}
        status_read, status_ptr = "", None
        extra = "0"
        flags = ["(rc != MPI_SUCCESS ? cpath::kFlagError : 0u)"]
        fields = []

        def add(field, code):
            fields.append((FIELD_ORDER.index(field), code))

        for role in ("peer", "peer2"):
            if role in b and k not in ("recv", "probe") and not (k == "sendrecv" and role == "peer2"):
                add(role, "w.%s(%s);" % (role, fl.val(b[role])))
        for role in ("tag", "tag2"):
            if role in b and k not in ("recv", "probe") and not (k == "sendrecv" and role == "tag2"):
                add(role, "w.%s(%s);" % (role, fl.val(b[role])))
        if "comm" in b:
            src = b["comm"]
            cv = fl.deref_handle(src) if e.pmap[src].ptr else fl.val(src)
            if k == "comm_free":
                if not fl.fortran:
                    cv = "(%s ? %s : MPI_COMM_NULL)" % (src, cv)
                self.pre.append("const MPI_Comm cpath_comm = %s;" % cv)
                cv = "cpath_comm"
            add("comm", "w.comm(%s);" % cv)
        if "root" in b:
            add("root", "w.root(%s);" % fl.val(b["root"]))
        if "bytes" in b:
            cond = "rc == MPI_SUCCESS"
            if "root" in b:
                # In the root group of an intercommunicator collective, ranks other than the
                # root pass MPI_PROC_NULL and none of their buffer arguments is significant.
                cond += " && %s != MPI_PROC_NULL" % fl.val(b["root"])
            add("bytes", "w.bytes(%s ? %s : 0);" % (cond, compile_bytes(e, fl, b["bytes"])))

        # receives and probes: actual source/tag from the status
        if k in ("recv", "sendrecv", "probe") and ("status" in b):
            ov, status_read, status_ptr = self.status_prep(b["status"])
            override.update(ov)
        if k in ("recv", "probe", "sendrecv"):
            src_role, tag_role = ("peer2", "tag2") if k == "sendrecv" else ("peer", "tag")
            src, tag = fl.val(b[src_role]), fl.val(b[tag_role])
            self.pre.append("const int cpath_src = %s, cpath_tag = %s;" % (src, tag))
            flags.append("(cpath_src == MPI_ANY_SOURCE ? cpath::kFlagAnySource : 0u)")
            flags.append("(cpath_tag == MPI_ANY_TAG ? cpath::kFlagAnyTag : 0u)")
            if status_ptr is not None:
                cond = "rc == MPI_SUCCESS" + (" && *%s" % self.flag_ptr() if "flag" in b else "")
                add(src_role, "w.%s(%s ? %s->MPI_SOURCE : cpath_src);" % (src_role, cond, status_ptr))
                add(tag_role, "w.%s(%s ? %s->MPI_TAG : cpath_tag);" % (tag_role, cond, status_ptr))
            else:
                add(src_role, "w.%s(cpath_src);" % src_role)
                add(tag_role, "w.%s(cpath_tag);" % tag_role)
        if k in ("probe", "rma_sync") and "flag" in b:
            add("flag", "w.flag(rc == MPI_SUCCESS ? %s : 0);" % self.flag_val())
        if k == "rma_sync" and "group" in b:
            # The group as world ranks, read after the call's second clock read: MPI_Win_post
            # and MPI_Win_start are once per epoch, and the translation is not the call's time.
            self.after_call = ("const uint64_t* cpath_gl = nullptr; const int cpath_gn = cpath::rma_group_list(ts, "
                               "rc == MPI_SUCCESS ? %s : MPI_GROUP_NULL, %s, &cpath_gl);" % (fl.val(b["group"]), fl.val(b["assert"])))
            extra = "11 * static_cast<size_t>(cpath_gn) + 11"
            add("reqlist", "w.reqlist(cpath_gn, cpath_gl);")

        # handles
        if k == "mrecv":
            self.pre.append("const uint64_t cpath_msg = %s;" % self.req_bits_in(b["msg"]))
            add("req", "w.req(cpath_msg);")
            if "req" in b:
                add("req2", "w.req2(rc == MPI_SUCCESS ? %s : 0);" % self.handle_out(b["req"]))
        elif k == "probe" and "msg" in b:
            cond = "rc == MPI_SUCCESS" + (" && %s" % self.flag_val() if "flag" in b else "")
            add("req", "w.req(%s ? %s : 0);" % (cond, self.handle_out(b["msg"])))
        elif "req" in b and (k in ("start", "request_free", "cancel") or req_by_value(e)):
            if k == "cancel":
                self.pre.append("cpath::RecordWriter::cancel_seen_.store(true, std::memory_order_relaxed);")
            self.pre.append("const uint64_t cpath_req = %s;" % self.req_bits_in(b["req"]))
            add("req", "w.req(cpath_req);")
            if k == "start":
                # Open MPI's MPI_Start hands the program a new request when the previous
                # instance is still under way inside the library (a buffered send's data):
                # completions then name the new handle. Unchanged, req2 repeats req (one byte:
                # handles are coded as the difference from the last one).
                add("req2", "w.req2(rc == MPI_SUCCESS ? %s : cpath_req);" % self.handle_out(b["req"]))
        elif k == "start" and "reqs" in b:
            n = fl.val(b["n"])
            # The handles before the call, then (only when the MPI replaced any, as MPI_Start
            # above) the handles after it.
            self.copy_requests(b["reqs"], n, slots=2)
            elem = self.request_i(b["reqs"])
            self.after_call = ("bool cpath_renamed = false; if (rc == MPI_SUCCESS) for (int i = 0; i < %s; ++i) "
                               "{ cpath_h[%s + i] = cpath::bits_Request(%s); cpath_renamed |= cpath_h[%s + i] != cpath_h[i]; }"
                               % (n, n, elem, n))
            flags.append("(cpath_renamed ? cpath::kFlagHandlesRenamed : 0u)")
            extra = "24 * static_cast<size_t>(%s)" % n
            add("reqlist", "w.reqlist(cpath_renamed ? 2 * (%s) : %s, cpath_h);" % (n, n))
        elif k == "complete":
            extra = self.completion(override, add)
        elif "req" in b and k != "complete":
            add("req", "w.req(rc == MPI_SUCCESS ? %s : 0);" % self.handle_out(b["req"]))

        if k == "comm_new":
            nc = b["newcomm"]
            newc = fl.deref_handle(nc)
            parent = fl.val(b["comm"]) if "comm" in b else "MPI_COMM_NULL"
            cflags = []
            if e.attrs.get("inter"):
                cflags.append("cpath::kCommInter")
            if e.attrs.get("group_only"):
                cflags.append("cpath::kCommGroupOnly")
            if e.short in ("Comm_dup", "Comm_dup_with_info"):
                cflags.append("cpath::kCommDup")
            if e.short in ("Comm_idup", "Comm_idup_with_info"):
                cflags.append("cpath::kCommDup | cpath::kCommIdupCall")
            # What tells apart the communicators one call makes (comm_registry.h).
            colour = "0"
            if e.short == "Comm_split":
                cflags.append("cpath::kCommColour")
                colour = fl.val("color")
            if e.short in ("Cart_create", "Graph_create", "Dist_graph_create", "Dist_graph_create_adjacent"):
                cflags.append("cpath::kCommOnePerCall")
            if e.short == "Intercomm_merge":
                cflags.append("cpath::kCommMergeCall")
            cf = " | ".join(cflags) if cflags else "0u"
            self.after_call = ("const int cpath_nc = (rc == MPI_SUCCESS) ? cpath::comm_created(%s, %s, %s, t1, %s) : 0;"
                               % (parent, newc, cf, colour))
            add("newcomm", "w.newcomm(cpath_nc);")
        if "obj" in b:
            # A window or file: written by the call when it also names the communicator it is
            # created on, otherwise read (before the call: MPI_Win_free resets it).
            name = b["obj"]
            p = e.pmap[name]
            t = HANDLE_TYPES[p.base]
            conv = ("cpath::bits_%s(MPI_%s_f2c(*%s))" % (t, t, name)) if fl.fortran else \
                   ("cpath::bits_%s(%s%s)" % (t, "*" if p.ptr else "", name))
            if "comm" in b and (p.ptr or fl.fortran):
                add("obj", "w.obj(rc == MPI_SUCCESS ? %s : 0);" % conv)
            else:
                if p.ptr and not fl.fortran:
                    conv = "(%s ? %s : 0)" % (name, conv)
                self.pre.append("const uint64_t cpath_obj = %s;" % conv)
                add("obj", "w.obj(cpath_obj);")

        fields.sort(key=lambda x: x[0])
        return override, status_read, flags, extra, [c for _, c in fields]

    def coll_handles(self):
        """(communicator bits, window/file bits) a collective runs on, for unrecorded_collective."""
        e, fl, b = self.e, self.fl, self.e.b
        if "comm" in b:
            src = b["comm"]
            if e.pmap[src].ptr:
                # MPI_Comm_disconnect(MPI_Comm *comm): read before the call sets it to MPI_COMM_NULL.
                cv = fl.deref_handle(src)
                if not fl.fortran:
                    cv = "(%s ? %s : MPI_COMM_NULL)" % (src, cv)
                return "cpath::bits_Comm(%s)" % cv, "0"
            return "cpath::bits_Comm(%s)" % fl.val(src), "0"
        name = b["obj"]
        p = e.pmap[name]
        t = HANDLE_TYPES[p.base]
        if fl.fortran:
            return "0", "cpath::bits_%s(MPI_%s_f2c(*%s))" % (t, t, name)
        if p.ptr:
            return "0", "(%s ? cpath::bits_%s(*%s) : 0)" % (name, t, name)
        return "0", "cpath::bits_%s(%s)" % (t, name)

    def flag_ptr(self):
        return self.e.b["flag"]

    def flag_val(self):
        return "(*%s != 0)" % self.e.b["flag"]

    def completion(self, override, add):
        e, fl, b = self.e, self.fl, self.e.b
        how = e.attrs["how"]
        fort = fl.fortran
        if how == "parrived":
            # A partition arrived or not: the request is polled, never completed (MPI_Wait or a
            # Test does that); found_ keeps a success out of a merged run of polls.
            self.pre.append("const uint64_t cpath_req = %s;" % self.req_bits_in(b["req"]))
            add("completions", "w.completions(0); if (rc == MPI_SUCCESS && %s) w.found();" % self.flag_val())
            add("polls", "w.polls1(cpath_req);")
            return "48"
        if how in ("wait", "test", "getstatus"):
            self.pre.append("const uint64_t cpath_req = %s;" % self.req_bits_in(b["req"]))
            ov, read, sp = self.status_prep(b["status"])
            override.update(ov)
            self.status_read_extra = read
            cond = "rc == MPI_SUCCESS && cpath_req != 0"
            if how != "wait":
                cond += " && %s" % self.flag_val()
            add("completions", "if (%s) { w.completions(1); w.completion(cpath_req, %s); } else { w.completions(0); }"
                % (cond, sp))
            if how == "wait":
                return "32"
            add("polls", "w.polls1(cpath_req);")
            return "48"
        n = fl.val(b["n"])
        self.copy_requests(b["reqs"], n)
        if how in ("waitall", "testall"):
            ov, view = self.statuses_prep(b["statuses"], n)
            override.update(ov)
            cond = "(rc == MPI_SUCCESS || rc == MPI_ERR_IN_STATUS)"
            if how == "testall":
                cond += " && %s" % self.flag_val()
            add("completions", "{ %s; int c = 0; if (%s) for (int i = 0; i < %s; ++i) c += (cpath_h[i] != 0 && cpath_sv.ok(i, rc)); "
                "w.completions(c); if (c) for (int i = 0; i < %s; ++i) if (cpath_h[i] != 0 && cpath_sv.ok(i, rc)) "
                "w.completion(cpath_h[i], cpath_sv.at(i)); }" % (view, cond, n, n))
            if how == "waitall":
                return "32 * static_cast<size_t>(%s)" % n
            add("polls", "w.polls(%s, cpath_h);" % n)
            return "16 + 48 * static_cast<size_t>(%s)" % n
        if how in ("waitany", "testany"):
            ov, read, sp = self.status_prep(b["status"])
            override.update(ov)
            self.status_read_extra = read
            idx = "(%s - 1)" % fl.val(b["index"]) if fort else "(*%s)" % b["index"]
            undefined = "%s == MPI_UNDEFINED" % (fl.val(b["index"]) if fort else "*%s" % b["index"])
            cond = "rc == MPI_SUCCESS && !(%s)" % undefined
            if how == "testany":
                cond += " && %s" % self.flag_val()
            add("completions", "if (%s) { w.completions(1); w.completion(cpath_h[%s], %s); } else { w.completions(0); }"
                % (cond, idx, sp))
            if how == "testany":
                add("polls", "w.polls(%s, cpath_h);" % n)
                return "48 + 16 * static_cast<size_t>(%s)" % n
            return "32"
        if how in ("waitsome", "testsome"):
            ov, view = self.statuses_prep(b["statuses"], n)
            override.update(ov)
            oc = fl.val(b["outcount"])
            ind = b["indices"]
            off = " - 1" if fort else ""
            add("completions", "{ %s; const int oc = (rc == MPI_SUCCESS || rc == MPI_ERR_IN_STATUS) && %s != MPI_UNDEFINED ? %s : 0; "
                "w.completions(oc); for (int j = 0; j < oc; ++j) w.completion(cpath_h[%s[j]%s], cpath_sv.at(j)); }"
                % (view, oc, oc, ind, off))
            if how == "waitsome":
                return "32 * static_cast<size_t>(%s)" % n
            add("polls", "w.polls(%s, cpath_h);" % n)
            return "16 + 48 * static_cast<size_t>(%s)" % n
        sys.exit("unknown completion variant " + how)

    def emit(self):
        e, fl = self.e, self.fl
        k = e.kind
        self.after_call = ""
        self.status_read_extra = ""
        if k in ("init", "finalize", "pcontrol"):
            return self.emit_env()
        override, status_read, flags, extra, fields = self.body()
        track = k == "comm_new"
        out = []
        out.append("  cpath::ThreadState* const ts = %s;" % ("cpath::enter_tracking()" if track else "cpath::enter_recording()"))
        # A freeing call with a pattern (MPI_Comm_disconnect) is a collective instance of its
        # communicator in the analysis (docs/pag-rules.md rule 4): counted like one, or a member
        # that paused through it would number the communicator's collectives one short.
        if (k == "coll" and not e.attrs.get("persistent")) or (k == "comm_free" and e.attrs.get("pattern")):
            # Not recording (paused, or stopped at the memory cap): the call is still counted on
            # its communicator, off the recording path, so later instances keep their sequence
            # numbers. Nested wrappers (MPICH's Fortran layer calling MPI_X) find the thread busy
            # and count nothing.
            out.append("  if (!ts) {")
            out.append("    cpath::ThreadState* const cpath_tk = cpath::enter_tracking();")
            out.append("    if (!cpath_tk) %s" % self.passthrough())
            out.append("    cpath::unrecorded_collective(%s, %s);" % self.coll_handles())
            out.append("    %s (void)rc;" % self.pmpi_call())
            out.append("    cpath::leave(cpath_tk);")
            out.append("    %s" % self.ret())
            out.append("  }")
        else:
            out.append("  if (!ts) %s" % self.passthrough())
        for p in self.pre:
            out.append("  " + p)
        if k == "abort":
            # MPI_Abort does not return: write the record first.
            out.append("  const uint64_t t0 = cpath::ticks();")
            out.append("  { cpath::RecordWriter w(ts, %d, t0, t0, CPATH_CALLER, 0u, 0);" % e.call_id)
            out += ["    " + f for f in fields]
            out.append("    w.finish(); }")
            out.append("  cpath::leave(ts);")
            out.append("  cpath::before_abort(%s);" % fl.val("errorcode"))
            out.append("  " + self.passthrough())
            return out
        out.append("  const uint64_t t0 = cpath::ticks();")
        out.append("  " + self.pmpi_call(override))
        out.append("  const uint64_t t1 = cpath::ticks();")
        if self.after_call:
            out.append("  " + self.after_call)
        if status_read:
            out.append("  " + status_read)
        if self.status_read_extra:
            out.append("  " + self.status_read_extra)
        indent = "  "
        if track:
            out.append("  if (cpath::recording_now()) {")
            indent = "    "
        out.append(indent + "const unsigned cpath_flags = %s;" % " | ".join(flags))
        out.append(indent + "cpath::RecordWriter w(ts, %d, t0, t1, CPATH_CALLER, cpath_flags, %s);" % (e.call_id, extra))
        out += [indent + f for f in fields]
        # Polls may merge into an identical previous record: the Test family, and every call that
        # answers with a flag and completes nothing (Iprobe/Improbe, MPI_Win_test; an unmerged
        # MPI_Win_test loop wrote 2.1 M records in 0.5 s, MPICH's rma/wintest).
        poll = (e.attrs.get("how") in POLL_HOWS) if k == "complete" else "flag" in e.b
        out.append(indent + ("w.finish_poll();" if poll else "w.finish();"))
        if track:
            out.append("  }")
            if not e.attrs.get("inter") and not e.attrs.get("group_only") and "comm" in e.b:
                # A collective on the parent even when not recorded (see the coll case above).
                out.append("  else {")
                out.append("    cpath::unrecorded_collective(cpath::bits_Comm(%s), 0);" % fl.val(e.b["comm"]))
                out.append("  }")
            elif (e.attrs.get("inter") or e.attrs.get("group_only")) and k == "comm_new" and e.short != "Comm_get_parent":
                # Instance 0 of the new communicator (docs/pag-rules.md rule 4), even when
                # not recorded: its members' later instances keep the same numbers.
                # MPI_Comm_get_parent only returns the handle: it creates nothing.
                nc = fl.deref_handle(e.b["newcomm"])
                out.append("  else if (rc == MPI_SUCCESS && %s != MPI_COMM_NULL) {" % nc)
                out.append("    cpath::unrecorded_collective(cpath::bits_Comm(%s), 0);" % nc)
                out.append("  }")
        out.append("  cpath::leave(ts);")
        out.append("  " + self.ret())
        return out

    def emit_env(self):
        e, fl, k = self.e, self.fl, self.e.kind
        out = []
        if k == "init":
            out.append("  const uint64_t t0 = cpath::before_init();")
            out.append("  " + self.pmpi_call())
            if e.short == "Init_thread":
                prov = "static_cast<int>(*provided)" if fl.fortran else "*provided"
                out.append("  cpath::after_init(%d, t0, CPATH_CALLER, rc, rc == MPI_SUCCESS ? %s : -1);" % (e.call_id, prov))
            else:
                out.append("  cpath::after_init(%d, t0, CPATH_CALLER, rc, -1);" % e.call_id)
            out.append("  " + self.ret())
        elif k == "finalize":
            out.append("  cpath::before_finalize(%d, CPATH_CALLER);" % e.call_id)
            if fl.fortran:
                out.append("  %s(ierr);" % fl.pmpi())
                out.append("  cpath::after_finalize();")
            else:
                out.append("  const int rc = PMPI_Finalize();")
                out.append("  cpath::after_finalize();")
                out.append("  return rc;")
        elif k == "pcontrol":
            lvl = "static_cast<int>(*level)" if fl.fortran else "level"
            out.append("  cpath::ThreadState* const ts = cpath::enter_tracking();")
            out.append("  const uint64_t t0 = cpath::ticks();")
            out.append("  " + self.pmpi_call())
            out.append("  const uint64_t t1 = cpath::ticks();")
            out.append("  if (ts) { cpath::pcontrol(ts, %d, %s, t0, t1, CPATH_CALLER, rc); cpath::leave(ts); }" % (e.call_id, lvl))
            out.append("  " + self.ret())
        return out


# Names the MPI library defines (PMPI_X for C, pmpi_x_ for Fortran), when the build found them:
# a wrapper is generated only for what the library has. Without a list, the MPI-3.1 entries.
C_SYMBOLS = None
F_SYMBOLS = None


def wrap_c(e):
    if e.kind == "gap":
        return False
    if C_SYMBOLS is None:
        return not e.attrs.get("since")
    return ("PMPI_" + e.short) in C_SYMBOLS


def wrap_fortran(e):
    if e.kind == "gap" or e.name.endswith("_c"):
        return False  # large counts reach Fortran only through mpi_f08 polymorphism
    if F_SYMBOLS is None:
        return not e.attrs.get("since")
    return ("pmpi_%s_" % e.short.lower()) in F_SYMBOLS


def gen_c(entries):
    o = [HEADER, '#include "wrapper_support.h"', "", 'extern "C" {', ""]
    for e in entries:
        if not wrap_c(e):
            continue
        o.append("CPATH_EXPORT int %s(%s) {" % (e.name, c_params(e)))
        o += Gen(e, CFlavour(e)).emit()
        o.append("}")
        o.append("")
    o.append('}  // extern "C"')
    return "\n".join(o) + "\n"


def req_by_value(e):
    """The call takes its request by value and completes nothing (MPI_Pready,
    MPI_Grequest_complete; not MPI_Request_get_status): it names a live request, as MPI_Start
    does, and makes none."""
    return "req" in e.b and e.kind != "complete" and not e.pmap[e.b["req"].lstrip("*")].is_pointer_like


def f08_next_name(e, f08_next):
    """The MPICH mpi_f08 procedure of entry e (mpi_send_f08ts_, mpi_barrier_f08_; the _c
    entries' are the _large_ twins), or None when the library has none."""
    if not f08_next or e.kind == "gap":
        return None
    low, tail = e.short.lower(), "_"
    if e.name.endswith("_c"):
        low, tail = low[:-2], "_large_"
    for form in ("f08ts", "f08"):
        name = "mpi_%s_%s%s" % (low, form, tail)
        if name in f08_next:
            return name
    return None


def gen_f08_next(e, name):
    fl = F08NextFlavour(e)
    ov = fortran_params_override(e, fl)
    params = ", ".join(ov[0] if ov else f_params(e))
    o = ["CPATH_EXPORT void %s(%s) {" % (name, params)]
    o.append("  static const auto cpath_next = cpath::next_procedure<void (*)(%s)>(\"%s\");" % (params, name))
    o += Gen(e, fl).emit()
    o.append("}")
    o.append("")
    return o


def gen_fortran(entries, f08_symbols=None, f08_next=None):
    o = [HEADER, '#include "wrapper_support.h"', "", 'extern "C" {', ""]
    for e in entries:
        nxt = f08_next_name(e, f08_next)
        if nxt:
            o += gen_f08_next(e, nxt)
        if not wrap_fortran(e):
            continue
        ov = fortran_params_override(e)
        params = ov[0] if ov else f_params(e)
        low = e.short.lower()
        o.append("void pmpi_%s_(%s);" % (low, ", ".join(params)))
        o.append("CPATH_EXPORT void mpi_%s_(%s) {" % (low, ", ".join(params)))
        o += Gen(e, FFlavour(e)).emit()
        o.append("}")
        for alias in ("mpi_%s__" % low, "mpi_%s" % low, "MPI_%s" % e.short.upper()):
            o.append('CPATH_EXPORT void %s(%s) __attribute__((alias("mpi_%s_")));' % (alias, ", ".join(params), low))
        o.append("")
        # Open MPI's `use mpi_f08` procedures (mpi_send_f08_) do not go through the symbols
        # above. Same arguments by reference (derived-type handles hold one integer, statuses
        # have the C layout), but IERROR is optional. The PMPI side lives in
        # libmpi_usempif08, loaded only by f08 programs: referenced weakly.
        if f08_symbols is not None and ("mpi_%s_f08_" % low) in f08_symbols and ("pmpi_%s_f08_" % low) in f08_symbols:
            o.append("void pmpi_%s_f08_(%s) __attribute__((weak));" % (low, ", ".join(params)))
            o.append("CPATH_EXPORT void mpi_%s_f08_(%s) {" % (low, ", ".join(params)))
            o += Gen(e, FFlavour(e, "_f08")).emit()
            o.append("}")
            o.append("")
    o.append('}  // extern "C"')
    return "\n".join(o) + "\n"


def gen_table_h(entries):
    o = [HEADER, "#pragma once", "#include <cstdint>", "", "namespace cpath {", "",
         "// Call ids are the order of wrappers/mpi_functions.spec; 0 means 'no call'.",
         "enum CallId : uint16_t {", "  kCallNone = 0,"]
    for e in entries:
        o.append("  kCall_%s = %d," % (e.name, e.call_id))
    o.append("  kNumCalls = %d" % (len(entries) + 1))
    o.append("};")
    o.append("")
    o.append("}  // namespace cpath")
    return "\n".join(o) + "\n"


KIND_ENUM = {"send": "Send", "recv": "Recv", "sendrecv": "Sendrecv", "probe": "Probe", "mrecv": "Mrecv",
             "start": "Start", "complete": "Complete", "request_free": "RequestFree", "cancel": "Cancel",
             "coll": "Collective", "comm_new": "CommNew", "comm_free": "CommFree", "init": "Init",
             "finalize": "Finalize", "abort": "Abort", "pcontrol": "Pcontrol", "rma": "Rma",
             "rma_sync": "RmaSync", "io": "Io", "other": "Other", "gap": "Gap", "pready": "Pready"}
PATTERN_ENUM = {"": "None", "all": "All", "bcast": "OneToAll", "reduce": "AllToOne", "scan": "Scan",
                "exscan": "Exscan", "neighbor": "Neighbor"}
MODE_ENUM = {"": "None", "std": "Standard", "sync": "Synchronous", "buffered": "Buffered", "ready": "Ready"}


def gen_table_cpp(entries):
    o = [HEADER, '#include "call_info.h"', "", "namespace cpath {", "",
         "const CallInfo kCallInfo[kNumCalls] = {",
         '  {"(none)", CallKind::Other, Pattern::None, SendMode::None, 0, 0},']
    for e in entries:
        fields = " | ".join("kField_%s" % f for f in e.fields()) or "0"
        fl = []
        if e.attrs.get("persistent"):
            fl.append("kCallPersistent")
        if "req" in e.b and e.kind not in ("complete", "start", "request_free", "cancel", "mrecv") and not req_by_value(e):
            fl.append("kCallNonBlocking")
        if e.kind == "mrecv" and "req" in e.b:
            fl.append("kCallNonBlocking")
        if e.kind == "probe" and "msg" in e.b:
            fl.append("kCallMatchedProbe")
        if e.kind in ("probe", "rma_sync") and "flag" in e.b:
            fl.append("kCallTestLike")
        if e.kind == "complete":
            how = e.attrs["how"]
            if how.startswith("test") or how in ("getstatus", "parrived"):
                fl.append("kCallTestLike")
            if how == "parrived":
                fl.append("kCallNoFree")
            if how == "getstatus":
                fl.append("kCallNoFree")
        if e.attrs.get("inter"):
            fl.append("kCallInter")
        if e.attrs.get("group_only"):
            fl.append("kCallGroupOnly")
        if e.attrs.get("flush"):
            fl.append("kCallBufferFlush")
        if e.attrs.get("partitioned"):
            fl.append("kCallPartitioned")
        if e.attrs.get("grequest"):
            fl.append("kCallGrequestComplete")
        if e.attrs.get("pscw"):
            fl.append({"post": "kCallPscwPost", "start": "kCallPscwStart", "complete": "kCallPscwComplete",
                       "wait": "kCallPscwWait"}[e.attrs["pscw"]])
        o.append('  {"%s", CallKind::%s, Pattern::%s, SendMode::%s, %s, %s},' % (
            "(collectives not recorded)" if e.kind == "gap" else e.name, KIND_ENUM[e.kind], PATTERN_ENUM[e.attrs.get("pattern", "")],
            MODE_ENUM[e.attrs.get("mode", "")], fields, " | ".join(fl) or "0"))
    o.append("};")
    o.append("")
    o.append("}  // namespace cpath")
    return "\n".join(o) + "\n"


def gen_doc(entries):
    entries = [e for e in entries if wrap_c(e)]
    o = ["# Wrapped MPI functions", "",
         "Generated from `wrappers/mpi_functions.spec` by `wrappers/generate_wrappers.py`.",
         "Every function below is intercepted in C (`MPI_X`) and Fortran (`mpi_x_`, `mpi_x__`, `mpi_x`, `MPI_X`).",
         "", "%d functions." % len(entries), "",
         "| id | function | kind | recorded fields |", "|---:|---|---|---|"]
    for e in entries:
        attrs = " ".join("%s=%s" % kv for kv in sorted(e.attrs.items()))
        o.append("| %d | %s | %s%s | %s |" % (e.call_id, e.name, e.kind, (" (" + attrs + ")") if attrs else "",
                                               ", ".join(e.fields()) or "time, call site"))
    return "\n".join(o) + "\n"


HEADER = "// Generated by wrappers/generate_wrappers.py from wrappers/mpi_functions.spec. Do not edit."


def write_if_changed(path, text):
    if os.path.exists(path) and open(path).read() == text:
        return
    with open(path, "w") as f:
        f.write(text)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--spec", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--list", action="store_true", help="print the wrapped function names and exit")
    ap.add_argument("--f08-symbols", help="file listing the mpi_*_f08_/pmpi_*_f08_ symbols of Open MPI's "
                                          "libmpi_usempif08 (one per line); generates mpi_f08 wrappers for them")
    ap.add_argument("--f08-next-symbols", help="file listing the mpi_*_f08_, mpi_*_f08ts_ (and _large_) symbols of "
                                               "MPICH's libmpichfort, which has no profiling twins for them; "
                                               "generates wrappers that call the next definition")
    ap.add_argument("--c-symbols", help="file listing the PMPI_ symbols the MPI library defines")
    ap.add_argument("--fortran-symbols", help="file listing the pmpi_*_ symbols of its Fortran library")
    a = ap.parse_args()
    global C_SYMBOLS, F_SYMBOLS
    if a.c_symbols:
        C_SYMBOLS = set(l.strip() for l in open(a.c_symbols) if l.strip()) or None
    if a.fortran_symbols:
        F_SYMBOLS = set(l.strip() for l in open(a.fortran_symbols) if l.strip()) or None
    entries = parse_spec(a.spec)
    if a.list:
        # Every function the spec covers, whether or not this MPI library has it.
        for e in entries:
            if e.kind != "gap":
                print(e.name)
        return
    os.makedirs(a.out, exist_ok=True)
    write_if_changed(os.path.join(a.out, "call_table.h"), gen_table_h(entries))
    write_if_changed(os.path.join(a.out, "call_table.cpp"), gen_table_cpp(entries))
    write_if_changed(os.path.join(a.out, "c_wrappers.cpp"), gen_c(entries))
    f08 = None
    if a.f08_symbols:
        f08 = set(l.strip() for l in open(a.f08_symbols) if l.strip())
    f08_next = None
    if a.f08_next_symbols:
        f08_next = set(l.strip() for l in open(a.f08_next_symbols) if l.strip())
    write_if_changed(os.path.join(a.out, "fortran_wrappers.cpp"), gen_fortran(entries, f08, f08_next))
    write_if_changed(os.path.join(a.out, "wrapped_functions.md"), gen_doc(entries))


if __name__ == "__main__":
    main()
