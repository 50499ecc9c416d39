"""What every harness here shares: the machine's description, CUDA-event timing
(median of the repetitions, every sample kept), CUDA-graph capture and an L2
flush. Plain PyTorch; nothing downloaded."""
import statistics
import subprocess

import torch

L2_FLUSH_BYTES = 512 * 1024 * 1024  # well over the H200's 60 MiB L2
_flush = None


def machine():
    """GPU, driver, clocks, library versions: what measurements/ folders record."""
    smi = subprocess.run(
        ["nvidia-smi", "--query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,power.limit",
         "--format=csv,noheader"], capture_output=True, text=True).stdout.strip()
    p = torch.cuda.get_device_properties(0)
    return {
        "gpu": torch.cuda.get_device_name(0), "sms": p.multi_processor_count, "nvidia_smi": smi,
        "torch": torch.__version__, "cuda": torch.version.cuda, "cudnn": torch.backends.cudnn.version(),
    }


def write_doc(doc, path):
    """Stamps the run's end on a harness's JSON document and writes it."""
    import json
    import time
    doc["finished"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    with open(path, "w") as f:
        json.dump(doc, f, indent=1)


def flush_l2():
    global _flush
    if _flush is None:
        _flush = torch.empty(L2_FLUSH_BYTES, dtype=torch.uint8, device="cuda")
    _flush.fill_(1)


def time_ms(fn, warmup=3, reps=20, flush=False):
    """Median milliseconds of fn() over reps, CUDA events around each call."""
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    samples = []
    for _ in range(reps):
        if flush:
            flush_l2()
        samples.append(time_call_ms(fn))
    return statistics.median(samples), samples


def time_call_ms(fn):
    """Milliseconds of one fn() call, CUDA events around it."""
    a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    a.record()
    fn()
    b.record()
    b.synchronize()
    return a.elapsed_time(b)


def graphed(fn, warmup=3):
    """fn captured in a CUDA graph (after warm-up on a side stream); returns replay."""
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for _ in range(warmup):
            fn()
    torch.cuda.current_stream().wait_stream(s)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        fn()
    return g.replay


def kernel_names(fn):
    """The GPU kernels one call of fn launches, with their GPU time (us)."""
    from torch.profiler import ProfilerActivity, profile
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        fn()
        torch.cuda.synchronize()
    out = []
    for e in prof.events():
        if e.device_type == torch.autograd.DeviceType.CUDA:
            out.append({"name": e.name[:160], "us": round(e.device_time if hasattr(e, "device_time") else e.cuda_time, 2)})
    return out
