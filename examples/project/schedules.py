"""Learning-rate schedules: Python floats computed from the step."""
import math


def warmup_cosine(step, total, peak=0.1, warmup=2):
    if step < warmup:
        return peak * (step + 1) / warmup
    return 0.5 * peak * (1 + math.cos(math.pi * (step - warmup) / max(1, total - warmup)))
