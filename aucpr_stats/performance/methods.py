"""The methods paragraph of a performance report, written from the registry records it used.

Each estimator and interval method record carries a ``citation`` (what it is,
with its reference); the paragraph names, per metric, the statistic, the
interval and its level, and the design the intervals respect. The full
references of the short citations the paragraph uses are listed after it.
"""

from __future__ import annotations

import re
from ..intervals.registry import INTERVAL_METHODS

__all__ = ["describe", "methods_text", "references_for", "REFERENCES"]

#: Full references of the short citations the records use (author-year as they are written there).
REFERENCES = {
    "Boyd, Eng & Page 2013": "Boyd, K., Eng, K. H., Page, C. D. (2013). Area under the precision-recall curve: "
                             "point estimates and confidence intervals. ECML PKDD 2013, LNCS 8190, 451-466.",
    "Hanley & McNeil 1982": "Hanley, J. A., McNeil, B. J. (1982). The meaning and use of the area under a receiver "
                            "operating characteristic (ROC) curve. Radiology 143, 29-36.",
    "Radcliffe 2013": "Radcliffe, D. (2013). Efficient computation of the A' statistic.",
    "Newcombe 2006": "Newcombe, R. G. (2006). Confidence intervals for an effect size measure based on the "
                     "Mann-Whitney statistic. Part 2: asymptotic methods and evaluation. Statistics in Medicine 25, "
                     "559-573.",
    "DeLong, DeLong & Clarke-Pearson 1988": "DeLong, E. R., DeLong, D. M., Clarke-Pearson, D. L. (1988). Comparing "
                                            "the areas under two or more correlated receiver operating "
                                            "characteristic curves: a nonparametric approach. Biometrics 44, "
                                            "837-845.",
    "Van Calster et al. 2016": "Van Calster, B., Nieboer, D., Vergouwe, Y., De Cock, B., Pencina, M. J., "
                               "Steyerberg, E. W. (2016). A calibration hierarchy for risk models was defined: from "
                               "utopia to empirical data. Journal of Clinical Epidemiology 74, 167-176.",
    "Cox 1958": "Cox, D. R. (1958). Two further applications of a model for binary regression. Biometrika 45, "
                "562-565.",
    "Brier 1950": "Brier, G. W. (1950). Verification of forecasts expressed in terms of probability. Monthly "
                  "Weather Review 78, 1-3.",
    "Vickers & Elkin 2006": "Vickers, A. J., Elkin, E. B. (2006). Decision curve analysis: a novel method for "
                            "evaluating prediction models. Medical Decision Making 26, 565-574.",
    "Vickers, Cronin, Elkin et al. 2008": "Vickers, A. J., Cronin, A. M., Elkin, E. B., Gonen, M. (2008). Extensions "
                                          "to decision curve analysis. BMC Medical Informatics and Decision Making "
                                          "8, 53.",
    "Efron & Tibshirani 1993": "Efron, B., Tibshirani, R. J. (1993). An Introduction to the Bootstrap. Chapman & "
                               "Hall.",
    "Collins et al. 2024": "Collins, G. S., Moons, K. G. M., Dhiman, P., et al. (2024). TRIPOD+AI statement: "
                           "updated guidance for reporting clinical prediction models that use regression or "
                           "machine learning methods. BMJ 385, e078378.",
    "Hartung & Knapp 2001": "Hartung, J., Knapp, G. (2001). A refined method for the meta-analysis of controlled "
                            "clinical trials with binary outcome. Statistics in Medicine 20, 3875-3889.",
    "Riley, Higgins & Deeks 2011": "Riley, R. D., Higgins, J. P. T., Deeks, J. J. (2011). Interpretation of random "
                                   "effects meta-analyses. BMJ 342, d549.",
    "Rubin 1987": "Rubin, D. B. (1987). Multiple Imputation for Nonresponse in Surveys. Wiley.",
    "Cochran 1954": "Cochran, W. G. (1954). The combination of estimates from different experiments. Biometrics 10, "
                    "101-129.",
}

_METRIC_WORDS = {"auroc": "Discrimination (AUROC)", "aucpr": "Discrimination (AUCPR)",
                 "calibration": "Calibration", "net_benefit": "Clinical utility"}


def _interval_citation(metric: str, method: str) -> str:
    record = INTERVAL_METHODS.get(metric, {}).get(method)
    return record.citation if record is not None and record.citation else f"the {method} interval"


def methods_text(results: list, methods: dict, level: float, design: dict) -> str:
    """One sentence per metric: its statistics (the records' citations) and interval (the method's citation)."""
    sentences = []
    for result in results:
        source = getattr(result, "per_imputation", result)  # a pooled result: its imputations' records
        records = [r for r in source.records if getattr(r, "citation", "")] or list(source.records)
        seen, statistics = set(), []
        for record in records:
            text = record.citation or record.name.replace("_", " ")
            if text not in seen:
                seen.add(text)
                statistics.append(text)
        method = methods[result.metric]
        sentences.append(f"{_METRIC_WORDS[result.metric]}: {'; '.join(statistics)}; each with "
                         f"{_interval_citation(result.metric, method)} at the {level:.0%} level.")
    if design.get("cluster"):
        sentences.append(f"Rows are clustered by {design['cluster']}: the intervals resample or linearise whole "
                         "clusters.")
    if design.get("weights"):
        sentences.append(f"Rows are weighted by {design['weights']}.")
    if design.get("prevalence") is not None:
        sentences.append(f"The sample is read at a stated prevalence of {design['prevalence']:g} (a case-control "
                         "sample reweighted to the population).")
    if design.get("imputation"):
        sentences.append(f"Multiply imputed data sets (numbered by {design['imputation']}) are pooled by Rubin's "
                         "rules (Rubin 1987), each measure on the scale its interval uses.")
    if design.get("sites"):
        sentences.append(f"Across the sites ({design['sites']}) AUROC and AUCPR are pooled by a random-effects "
                         "meta-analysis (REML for tau², the Hartung-Knapp-Sidik-Jonkman interval, Hartung & Knapp "
                         "2001) with the prediction interval for a new site (Riley, Higgins & Deeks 2011).")
    if design.get("by"):
        sentences.append(f"Subgroups by {', '.join(design['by'])}; heterogeneity across their levels tested on the "
                         "subgroup estimates and their variances (Cochran's Q, Cochran 1954, for AUROC, calibration "
                         "and net benefit; an F test on jackknife variances for AUCPR; each named in the table's "
                         "footnote).")
    sentences.append("Reported following TRIPOD+AI (Collins et al. 2024), items 12e, 23a and 23b.")
    return " ".join(sentences)


def references_for(text: str) -> list[str]:
    """The full references of the short citations that ``text`` holds, in the order of first mention."""
    found = []
    for short, full in REFERENCES.items():
        match = re.search(re.escape(short), text)
        if match:
            found.append((match.start(), full))
    return [full for _, full in sorted(found)]


def describe(results: list, methods: dict, level: float, design: dict) -> tuple[str, list[str]]:
    """The methods paragraph and its references."""
    text = methods_text(results, methods, level, design)
    return text, references_for(text)

