"""What the decode measurement scripts share (decode_bound.py, decode_bound_warp_push.py,
decode_floor.py; issue 15): a launch through the driver's cuLaunchKernelEx with the cluster-dimension,
programmatic-dependent-launch and cooperative attributes, timing as the gpu-runner does (a CUDA
graph of K back-to-back launches between two events, the median per launch over REPS replays, after
five warm-up replays; with ONCE=1 in the environment each work item runs once and its time reads 0,
for Nsight Compute), a kernel's function pointer from a CuPy module, and rms_norm at the decode
shape (4 x 32,768) with its reference. Imported from this folder; measurement only, no Rust.
"""
import ctypes, os
import cupy as cp

K, REPS = 100, 30
ONCE = os.environ.get("ONCE") == "1"
cuda = ctypes.CDLL("libcuda.so.1")

class LaunchAttr(ctypes.Structure):
    _fields_ = [("id", ctypes.c_int), ("pad", ctypes.c_char * 4), ("value", ctypes.c_ubyte * 64)]
class LaunchConfig(ctypes.Structure):
    _fields_ = [("gx", ctypes.c_uint), ("gy", ctypes.c_uint), ("gz", ctypes.c_uint),
                ("bx", ctypes.c_uint), ("by", ctypes.c_uint), ("bz", ctypes.c_uint),
                ("shared", ctypes.c_uint), ("stream", ctypes.c_void_p),
                ("attrs", ctypes.POINTER(LaunchAttr)), ("nattrs", ctypes.c_uint)]

stream = cp.cuda.Stream(non_blocking=True)

# CUlaunchAttributeID: cooperative 2, cluster dimension 4, programmatic stream serialization 6.
ATTR_COOPERATIVE, ATTR_CLUSTER_DIMENSION, ATTR_PROGRAMMATIC = 2, 4, 6
# CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED: clusters of more than 8 blocks.
NON_PORTABLE_CLUSTER_SIZE_ALLOWED = 14

def launch(fn, grid, block, shared, args, cluster=1, pdl=False, coop=False):
    """Launches `fn` on `stream`: `grid` x `block` threads, `shared` dynamic bytes, `args` ctypes values."""
    attrs = (LaunchAttr * 3)()
    n = 0
    if cluster > 1:
        attrs[n].id = ATTR_CLUSTER_DIMENSION
        ctypes.memmove(attrs[n].value, (ctypes.c_uint * 3)(cluster, 1, 1), 12); n += 1
    if pdl:
        attrs[n].id = ATTR_PROGRAMMATIC
        ctypes.memmove(attrs[n].value, (ctypes.c_int * 1)(1), 4); n += 1
    if coop:
        attrs[n].id = ATTR_COOPERATIVE
        ctypes.memmove(attrs[n].value, (ctypes.c_int * 1)(1), 4); n += 1
    cfg = LaunchConfig(grid, 1, 1, block, 1, 1, shared, stream.ptr, attrs, n)
    params = (ctypes.c_void_p * len(args))(*[ctypes.cast(ctypes.pointer(h), ctypes.c_void_p) for h in args])
    rc = cuda.cuLaunchKernelEx(ctypes.byref(cfg), ctypes.c_void_p(fn), params, None)
    if rc != 0:
        raise RuntimeError(f"cuLaunchKernelEx rc={rc}")

def allow_large_clusters(fn):
    cuda.cuFuncSetAttribute(ctypes.c_void_p(fn), NON_PORTABLE_CLUSTER_SIZE_ALLOWED, 1)

def graph_time(work):
    """Microseconds per call of `work`: the median over REPS replays of a graph of K calls."""
    if ONCE:
        with stream:
            work(); stream.synchronize()
        return 0.0
    with stream:
        stream.begin_capture()
        try:
            for _ in range(K):
                work()
        finally:
            g = stream.end_capture()
        g.upload(stream)
        for _ in range(5):
            g.launch(stream)
        ts = []
        for _ in range(REPS):
            s, e = cp.cuda.Event(), cp.cuda.Event()
            s.record(stream); g.launch(stream); e.record(stream); e.synchronize()
            ts.append(cp.cuda.get_elapsed_time(s, e) * 1e3 / K)
    ts.sort()
    return ts[len(ts) // 2]

def function(module, name):
    """The driver's function pointer of kernel `name` in a CuPy RawModule."""
    f = module.get_function(name)
    return f.kernel.ptr if hasattr(f, "kernel") else f.ptr

def pointer(arr):
    return ctypes.c_uint64(arr.data.ptr)

def here(name):
    """A file of this folder."""
    return os.path.join(os.path.dirname(os.path.abspath(__file__)), name)

class RmsDecode:
    """rms_norm at the decode shape: x (`randn`, or `rand` with normal=False), weight, output,
    the reference, and the prototypes' arguments (x, w, o, cols, eps)."""
    ROWS, COLS = 4, 32768

    def __init__(self, normal=True):
        n = self.ROWS * self.COLS
        self.n = n
        self.x = cp.random.randn(n, dtype=cp.float32) if normal else cp.random.rand(n, dtype=cp.float32)
        self.w = cp.random.rand(self.COLS, dtype=cp.float32)
        self.o = cp.empty_like(self.x)
        self.eps = ctypes.c_float(1e-5)

    def expected(self):
        xs = self.x.reshape(self.ROWS, self.COLS)
        return xs / cp.sqrt((xs * xs).mean(axis=1, keepdims=True) + 1e-5) * self.w

    def args(self):
        return [pointer(self.x), pointer(self.w), pointer(self.o), ctypes.c_uint64(self.COLS), self.eps]

    def error(self, expected):
        """The largest absolute difference of the output from `expected`."""
        return float(cp.abs(self.o.reshape(self.ROWS, self.COLS) - expected).max())
