"""How many pairs a Bland-Altman study needs for its limits of agreement to show agreement
within a clinical margin (Lu et al. 2016)."""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from .._errors import InvalidInputError, bad_parameter
from .._interval import check_confidence_level
from .._results import Record
from .._types import FloatArray

__all__ = ["LimitsSampleSize", "limits_power", "sample_size_limits"]

#: The most pairs searched for.
_MAX_N = 10_000_000


@dataclasses.dataclass(frozen=True, slots=True)
class LimitsSampleSize(Record):
    """The pairs a Bland-Altman study needs (Lu et al. 2016).

    Attributes
    ----------
    n_pairs : int
        The fewest pairs whose power reaches ``power``.
    power : float
        The power at ``n_pairs``.
    curve : pandas.DataFrame
        ``n_pairs`` and ``power`` from 3 pairs to twice ``n_pairs``.
    assumptions : mapping
        ``mean``, ``sd``, ``delta``, ``target_power``, ``confidence_level``, ``agreement``.
    method : str
    """

    n_pairs: int
    power: float
    curve: pd.DataFrame
    assumptions: dict[str, Any]
    method: str

    def _headline(self) -> str:
        return f"{self.n_pairs} pairs (power {self.power:.3f})"


def limits_power(
    n: npt.ArrayLike,
    *,
    sd: float,
    delta: float,
    mean: float = 0.0,
    confidence_level: float = 0.95,
    agreement: float = 0.95,
) -> FloatArray:
    r"""The power of a Bland-Altman study of ``n`` pairs to show that both limits of
    agreement, with their intervals, lie within ``-delta .. delta`` (Lu et al. 2016).

    With :math:`z` the normal quantile of the agreement level, :math:`t` the :math:`1 -
    \alpha/2` quantile of Student's t on :math:`n - 1` degrees of freedom and the SE of a
    limit :math:`se = \sigma \sqrt{1/n + z^2 / (2(n - 1))}`,

    .. math::

        \beta_1 = P\left(T_{n-1}(\tau_1) \le t\right), \quad
        \tau_1 = \frac{\delta - \mu - z\sigma}{se}, \qquad
        \beta_2 \text{ likewise with } \tau_2 = \frac{\delta + \mu - z\sigma}{se},

    :math:`T_{n-1}(\tau)` non-central t, and the power :math:`1 - \beta_1 - \beta_2`
    (floored at 0): Lu et al.'s equations 3-5, as SimplyAgree's ``blandPowerCurve``.

    References
    ----------
    .. [1] Lu, M.-J., Zhong, W.-H., Liu, Y.-X., Miao, H.-Z., Li, Y.-C., & Ji, M.-H. (2016). Sample
       size for assessing agreement between two methods of measurement by Bland-Altman method.
       The International Journal of Biostatistics, 12(2). https://doi.org/10.1515/ijb-2015-0039

    Examples
    --------
    >>> [round(float(p), 3) for p in limits_power([59, 78], sd=2.5, delta=7, mean=0.5)]
    [0.799, 0.901]
    """
    from scipy import special

    nn = np.asarray(n, dtype=np.float64)
    level = check_confidence_level(confidence_level, "limits_power")
    share = check_confidence_level(agreement, "limits_power")
    z = float(special.ndtri(0.5 + share / 2.0))
    df = nn - 1.0
    se = sd * np.sqrt(1.0 / nn + z * z / (2.0 * df))
    t = special.stdtrit(df, 0.5 + level / 2.0)
    beta1 = special.nctdtr(df, (delta - mean - z * sd) / se, t)
    beta2 = special.nctdtr(df, (delta + mean - z * sd) / se, t)
    return np.asarray(np.maximum(1.0 - beta1 - beta2, 0.0), dtype=np.float64)


def sample_size_limits(
    sd: float,
    delta: float,
    *,
    mean: float = 0.0,
    power: float = 0.8,
    confidence_level: float = 0.95,
    agreement: float = 0.95,
) -> LimitsSampleSize:
    """The fewest pairs for which a Bland-Altman study shows, with probability ``power``,
    that both limits of agreement and their ``confidence_level`` intervals lie within
    ``-delta .. delta`` (Lu et al. 2016; power as :func:`limits_power`).

    Parameters
    ----------
    sd : float
        The expected SD of the differences.
    delta : float
        The clinical margin: differences within ``-delta .. delta`` do not matter.
    mean : float, default 0
        The expected bias.
    power : float, default 0.8
    confidence_level : float, default 0.95
        Of the limits' intervals.
    agreement : float, default 0.95
        The share of differences between the limits (1.96 SD for 0.95).

    Returns
    -------
    LimitsSampleSize

    Raises
    ------
    InvalidInputError
        ``sd`` or ``delta`` not positive, levels outside (0, 1), or a margin no study can
        reach (``|mean| + z sd >= delta``).

    Notes
    -----
    The power is the approximation of Lu et al. (2016): the two limits are taken one at a
    time (their joint probability is ignored), with the approximate SE of a limit of
    Bland & Altman (1999). It rises with ``n`` to 1 when ``|mean| + z sd < delta``.

    References
    ----------
    .. [1] Lu, M. J., Zhong, W. H., Liu, Y. X., Miao, H. Z., Li, Y. C., & Ji, M. H. (2016).
       Sample size for assessing agreement between two methods of measurement by
       Bland-Altman method. Int. J. Biostat., 12(2). https://doi.org/10.1515/ijb-2015-0039

    Examples
    --------
    SimplyAgree's tests (``blandPowerCurve(mu = 0.5, SD = 2.5, delta = 7)``): power 0.799
    at 59 pairs, so 60 are the fewest reaching 0.8:

    >>> import accord
    >>> plan = accord.sample_size_limits(2.5, 7, mean=0.5)
    >>> plan.n_pairs, round(plan.power, 3)
    (60, 0.806)
    """
    from scipy import special

    for name, value in (("sd", sd), ("delta", delta)):
        if isinstance(value, bool) or not isinstance(value, int | float) or not value > 0:
            raise InvalidInputError(
                bad_parameter("sample_size_limits", name, "a positive number", value)
            )
    target = check_confidence_level(power, "sample_size_limits")
    z = float(special.ndtri(0.5 + check_confidence_level(agreement, "sample_size_limits") / 2))
    if abs(mean) + z * sd >= delta:
        raise InvalidInputError(
            f"sample_size_limits: the expected limits |mean| + {z:.3g} sd = "
            f"{abs(mean) + z * sd:g} reach the margin delta = {delta:g}: no number of pairs "
            "shows agreement"
        )

    options = {"sd": sd, "delta": delta, "mean": mean, "confidence_level": confidence_level,
               "agreement": agreement}  # fmt: skip

    def at(n: int) -> float:
        return float(limits_power([n], **options)[0])

    high = 4
    while at(high) < target and high < _MAX_N:
        high *= 2
    low = max(3, high // 2)
    while low < high:  # the fewest n in [low, high] with power >= target
        mid = (low + high) // 2
        if at(mid) >= target:
            high = mid
        else:
            low = mid + 1
    grid = np.arange(3, 2 * low + 1)
    curve = pd.DataFrame({"n_pairs": grid, "power": limits_power(grid, **options)})
    return LimitsSampleSize(
        n_pairs=int(low),
        power=at(low),
        curve=curve,
        assumptions={
            "mean": mean,
            "sd": sd,
            "delta": delta,
            "target_power": target,
            "confidence_level": confidence_level,
            "agreement": agreement,
        },
        method="Lu et al. (2016): power that both limits of agreement and their "
        "intervals lie within -delta to delta, non-central t, limits taken one at a time",
    )
