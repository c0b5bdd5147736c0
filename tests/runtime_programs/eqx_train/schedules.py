"""Learning-rate schedules: plain Python floats, one per step."""


def exponential_decay(step: int, base: float = 1e-2, rate: float = 0.9) -> float:
    return base * rate ** step
