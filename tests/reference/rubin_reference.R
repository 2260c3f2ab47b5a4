# Reference numbers from R for pooling across multiple imputations: Rubin's rules for a scalar
# (mice::pool.scalar), the multivariate Wald test D1 and the pooled chi-square test D2 (mitml), and
# a re-computation of the example in psfmi's "Pooling AUC values" vignette.
#
# Regenerate (from the repository root):
#   Rscript tests/reference/rubin_reference.R
# It writes tests/reference/rubin_reference.json and tests/reference/psfmi_pool_auc_vignette.json.
# Numbers are written with 17 significant digits (sprintf("%.17g") passed to jsonlite as verbatim
# JSON; jsonlite 1.8.4 itself stops at 15 digits); NA / NaN / Inf are written as null.
#
# Produced with R 4.2.2 Patched (2022-11-10 r83330), mice 3.15.0, mitml 0.4-4, jsonlite 1.8.4, from
# the Debian 12 packages r-cran-mice, r-cran-mitml, r-cran-jsonlite (versions are also in the JSON).
# miceadds and psfmi have no Debian package and CRAN is not reachable from this machine, so neither
# is run here: mitml's D2 is the same formula as miceadds::micombine.chisquare(version = 1, the
# default since miceadds 3.x), and psfmi::pool_auc is re-computed from its formulas (section 3).
#
# ---------------------------------------------------------------------------------------------
# 1. Scalar Rubin's rules: mice::pool.scalar(Q, U, n, k, rule = "rubin1987") (mice 3.15.0 source)
#   m      = length(Q)
#   qbar   = mean(Q);  ubar = mean(U);  b = var(Q)            (var with denominator m - 1)
#   t      = ubar + (1 + 1/m) b
#   r      = (1 + 1/m) b / ubar                               (relative increase in variance)
#   df     = barnard.rubin(m, b, t, dfcom = n - k):
#              lambda = (1 + 1/m) b / t, then lambda is floored: lambda < 1e-4 -> 1e-4
#              dfold  = (m - 1) / lambda^2                    (Rubin 1987; = (m - 1)(1 + 1/r)^2)
#              dfobs  = (dfcom + 1) / (dfcom + 3) * dfcom * (1 - lambda)
#              df     = dfold                              if dfcom is Inf (n = Inf, the default)
#                     = dfold * dfobs / (dfold + dfobs)    otherwise (Barnard & Rubin 1999)
#   fmi    = (r + 2 / (df + 3)) / (r + 1)
#   pool.scalar does NOT return lambda; "lambda" below is (1 + 1/m) b / t before the 1e-4 floor.
#   With identical Q (b = 0): r = 0, lambda floored to 1e-4 inside barnard.rubin only, so
#   dfold = (m - 1) * 1e8 and df is just below dfobs; fmi = 2 / (df + 3).
#   Also recorded: "df_large_sample" = barnard.rubin(m, b, t, Inf) (= dfold), and the same case
#   through mitml::testEstimates(qhat, uhat, df.com = n - k), which uses
#   lam = r / (1 + r) (no floor), vm = (m - 1)(1 + 1/r)^2, vobs = (1 - lam)(df.com + 1)/(df.com + 3) df.com,
#   v = 1 / (1/vm + 1/vobs), fmi = (r + 2/(v + 3)) / (r + 1).
#
# 2a. D1, multivariate Wald (Li, Raghunathan & Rubin 1991), mitml:::.D1 (called by mitml::testModels,
#   testConstraints and mice::D1). Qhat: p x m estimates, Uhat: p x p x m covariances, test Q = 0.
#   Qbar = rowMeans(Qhat); Ubar = mean of Uhat; B = cov(t(Qhat)) (denominator m - 1)
#   r    = (1 + 1/m) tr(B Ubar^-1) / p
#   D1   = Qbar' ((1 + r) Ubar)^-1 Qbar / p
#   df1  = p;  t = p (m - 1)
#   df2 (no df.com) = 4 + (t - 4) (1 + (1 - 2/t) / r)^2          if t > 4
#                   = t (1 + 1/p) (1 + 1/r)^2 / 2                  otherwise
#   df2 (df.com)    = Reiter (2007): a = r t/(t - 2), vstar = (df.com + 1)/(df.com + 3) df.com,
#                     c0 = 1/(t - 4), c1 = vstar - 2(1 + a), c2 = vstar - 4(1 + a),
#                     z = 1/c2 + c0 (a^2 c1 / ((1 + a)^2 c2)) + c0 (8 a^2 c1 / ((1 + a) c2^2) + 4 a^2 / ((1 + a) c2))
#                         + c0 (4 a^2 / (c2 c1) + 16 a^2 c1 / c2^3) + c0 (8 a^2 / c2^2),   df2 = 4 + 1/z
#   p-value = pf(D1, df1, df2, lower.tail = FALSE)
#   Public-API cross-check: mitml::testConstraints(qhat, uhat, constraints = parameter names); it
#   pushes the estimates through numericDeriv() (finite differences), so it may differ from .D1 in
#   the last digits.
#
# 2b. D2, pooled chi-square statistics (Li, Meng, Raghunathan & Rubin 1991), mitml:::.D2(d, k),
#   identical to miceadds::micombine.chisquare(dk, df, version = 1):
#   m = length(d); r = (1 + 1/m) var(sqrt(d))
#   D2  = (mean(d)/k - r (m + 1)/(m - 1)) / (1 + r)     (can be negative; not truncated)
#   df1 = k;  df2 = k^(-3/m) (m - 1) (1 + 1/r)^2;  p = pf(D2, df1, df2, lower.tail = FALSE)
#   (miceadds' older version = 0 uses D = (mean(d)/k - (1 - 1/m) s2)/(1 + (1 + 1/m) s2),
#    df2 = (m - 1)/k^(3/m) (1 + m/(m + 1/m)/s2)^2 with s2 = var(sqrt(d)); recorded as "D2_miceadds_v0".)
# ---------------------------------------------------------------------------------------------
suppressMessages({
  library(mice)
  library(mitml)
  library(jsonlite)
})

as_json17 <- function(x) {
  if (is.list(x)) return(lapply(x, as_json17))
  if (!is.numeric(x)) return(x)
  if (is.matrix(x)) return(lapply(seq_len(nrow(x)), function(i) as_json17_vec(x[i, ])))
  as_json17_vec(x)
}
as_json17_vec <- function(x) {
  x <- unname(as.numeric(x))
  items <- ifelse(is.finite(x), sprintf("%.17g", x), "null")
  if (length(x) == 1L) structure(items, class = "json")
  else structure(paste0("[", paste(items, collapse = ", "), "]"), class = "json")
}
write_json17 <- function(x, path) {
  writeLines(toJSON(as_json17(x), auto_unbox = TRUE, json_verbatim = TRUE, null = "null", pretty = TRUE), path)
}

set.seed(20240612)

# ---- 1. scalar Rubin's rules ----------------------------------------------------------------
scalar_case <- function(name, Q, U, n, k = 1) {
  res <- try(pool.scalar(Q, U, n = n, k = k, rule = "rubin1987"), silent = TRUE)
  m <- length(Q)
  out <- list(name = name, m = m, Q = Q, U = U, n = if (is.finite(n)) n else "Inf", k = k)
  if (inherits(res, "try-error")) {
    out$error <- as.character(res)
    return(out)
  }
  te <- try(testEstimates(qhat = lapply(Q, function(x) c(Q = x)),
                          uhat = lapply(U, function(x) matrix(x, 1, 1, dimnames = list("Q", "Q"))),
                          df.com = if (is.finite(n)) n - k else NULL), silent = TRUE)
  out$pool.scalar <- list(qbar = res$qbar, ubar = res$ubar, b = res$b, t = res$t, df = res$df,
                          r = res$r, fmi = res$fmi, lambda = (1 + 1 / m) * res$b / res$t,
                          df_large_sample = mice:::barnard.rubin(m, res$b, res$t, Inf))
  if (!inherits(te, "try-error")) {
    e <- te$estimates
    out$mitml.testEstimates <- list(estimate = e[1, "Estimate"], se = e[1, "Std.Error"], t = e[1, "t.value"],
                                    df = e[1, "df"], p = e[1, "P(>|t|)"], riv = e[1, "RIV"], fmi = e[1, "FMI"])
  }
  out
}
scalar_cases <- list(
  scalar_case("m5_n200", Q = rnorm(5, 1.40, 0.08), U = runif(5, 0.018, 0.024), n = 200),
  scalar_case("m10_n1000", Q = rnorm(10, 2.10, 0.03), U = runif(10, 0.0045, 0.0055), n = 1000),
  scalar_case("m20_n50", Q = rnorm(20, 0.90, 0.25), U = runif(20, 0.07, 0.10), n = 50),
  scalar_case("m5_n200_k3", Q = rnorm(5, 1.40, 0.08), U = runif(5, 0.018, 0.024), n = 200, k = 3),
  scalar_case("m5_large_sample", Q = rnorm(5, 1.60, 0.10), U = runif(5, 0.010, 0.015), n = Inf),
  scalar_case("m5_b_zero", Q = rep(1.5, 5), U = c(0.020, 0.021, 0.019, 0.022, 0.018), n = 200),
  scalar_case("m3_high_fmi", Q = c(1.0, 1.8, 2.6), U = c(0.01, 0.012, 0.011), n = 100)
)

# ---- 2a. D1 --------------------------------------------------------------------------------
rand_cov <- function(p, scale) {
  A <- matrix(rnorm(p * p), p, p)
  S <- crossprod(A) / p + diag(p)
  S * scale
}
d1_case <- function(name, m, p, mu, between_sd, within_scale, df.com = NULL) {
  Qhat <- matrix(rnorm(p * m, rep(mu, m), between_sd), nrow = p)
  U0 <- rand_cov(p, within_scale)
  Uhat <- array(NA_real_, c(p, p, m))
  for (i in seq_len(m)) Uhat[, , i] <- U0 * runif(1, 0.9, 1.1)
  nms <- paste0("b", seq_len(p))
  rownames(Qhat) <- nms
  D <- mitml:::.D1(Qhat = Qhat, Uhat = Uhat, df.com = df.com)
  pval <- pf(c(D$F), D$k, D$v, lower.tail = FALSE)
  qlist <- lapply(seq_len(m), function(i) setNames(Qhat[, i], nms))
  ulist <- lapply(seq_len(m), function(i) { u <- Uhat[, , i]; dimnames(u) <- list(nms, nms); u })
  tc <- try(testConstraints(qhat = qlist, uhat = ulist, constraints = nms, method = "D1", df.com = df.com),
            silent = TRUE)
  te <- testEstimates(qhat = qlist, uhat = ulist, df.com = df.com)$estimates
  # D2 on the per-imputation Wald statistics of the same data
  dW <- sapply(seq_len(m), function(i) c(t(Qhat[, i]) %*% solve(Uhat[, , i]) %*% Qhat[, i]))
  D2 <- mitml:::.D2(d = dW, k = p)
  out <- list(name = name, m = m, p = p, df.com = if (is.null(df.com)) NULL else df.com,
              Qhat = lapply(seq_len(m), function(i) Qhat[, i]),
              Uhat = lapply(seq_len(m), function(i) Uhat[, , i]),
              D1 = list(F = c(D$F), df1 = D$k, df2 = D$v, p = pval, r = D$r),
              per_parameter = list(estimate = te[, "Estimate"], se = te[, "Std.Error"], df = te[, "df"],
                                   riv = te[, "RIV"], fmi = te[, "FMI"]),
              wald_chisq = dW,
              D2_of_wald = list(F = D2$F, df1 = D2$k, df2 = D2$v, p = pf(D2$F, D2$k, D2$v, lower.tail = FALSE),
                                r = D2$r))
  if (!inherits(tc, "try-error")) {
    tt <- tc$test
    out$testConstraints <- list(F = tt[1, "F.value"], df1 = tt[1, "df1"], df2 = tt[1, "df2"],
                                p = tt[1, "P(>F)"], r = tt[1, "RIV"])
  }
  out
}
d1_cases <- list(
  d1_case("m5_p2", m = 5, p = 2, mu = c(0.30, -0.20), between_sd = 0.08, within_scale = 0.01),
  d1_case("m10_p3", m = 10, p = 3, mu = c(0.10, 0.25, -0.05), between_sd = 0.05, within_scale = 0.006),
  d1_case("m5_p2_dfcom100", m = 5, p = 2, mu = c(0.30, -0.20), between_sd = 0.08, within_scale = 0.01,
          df.com = 100),
  d1_case("m20_p3_dfcom60", m = 20, p = 3, mu = c(0.05, 0.15, 0.10), between_sd = 0.10, within_scale = 0.02,
          df.com = 60)
)

# ---- 2b. D2 from chi-square values ---------------------------------------------------------
d2_case <- function(name, dk, df) {
  D <- mitml:::.D2(d = dk, k = df)
  m <- length(dk)
  s2 <- var(sqrt(dk))
  D0 <- (mean(dk) / df - (1 - 1 / m) * s2) / (1 + (1 + 1 / m) * s2)
  df2_0 <- (m - 1) / df^(3 / m) * (1 + m / (m + 1 / m) / s2)^2
  list(name = name, dk = dk, df = df, m = m,
       D2 = list(D = D$F, df1 = D$k, df2 = D$v, p = pf(D$F, D$k, D$v, lower.tail = FALSE), r = D$r),
       D2_miceadds_v0 = list(D = D0, df1 = df, df2 = df2_0, p = pf(D0, df, df2_0, lower.tail = FALSE)))
}
d2_cases <- list(
  d2_case("m5_df2", dk = c(6.1, 7.4, 5.2, 8.9, 6.6), df = 2),
  d2_case("m5_df4", dk = c(12.3, 9.8, 15.1, 11.0, 13.7), df = 4),
  d2_case("m5_df4_weak", dk = c(3.1, 5.6, 2.2, 4.8, 3.9), df = 4),
  d2_case("m10_df3", dk = round(rchisq(10, df = 3, ncp = 6), 4), df = 3),
  d2_case("m5_df2_negative", dk = c(0.05, 4.0, 0.2, 6.5, 0.01), df = 2)
)

write_json17(list(
  r_version = R.version.string,
  mice_version = as.character(packageVersion("mice")),
  mitml_version = as.character(packageVersion("mitml")),
  jsonlite_version = as.character(packageVersion("jsonlite")),
  seed = 20240612,
  pool_scalar = scalar_cases,
  D1 = d1_cases,
  D2 = d2_cases
), "tests/reference/rubin_reference.json")

# ---- 3. psfmi pool_auc vignette --------------------------------------------------------------
# psfmi cannot be installed here, so its computation is redone below from its formulas
# (psfmi 1.4.0, R/pool_auc.R, log_auc = TRUE):
#   logit-transform each AUC, SE on the logit scale = SE / (AUC (1 - AUC)) (delta method);
#   ubar = mean(SE_logit^2), b = var(logit AUC), T = ubar + (1 + 1/m) b, r = (1 + 1/m) b / ubar;
#   df = (m - 1)(1 + 1/r)^2 (Rubin 1987, no small-sample / Barnard-Rubin adjustment);
#   CI = expit(mean(logit AUC) -/+ qt(0.975, df) sqrt(T)); pooled AUC = expit(mean(logit AUC));
#   output rounded to 4 decimals. psfmi 0.5.0 used 1.96 instead of qt(0.975, df).
auc <- c(0.84, 0.78, 0.75, 0.71, 0.79)
auc_se <- c(0.04, 0.05, 0.01, 0.02, 0.03)
m <- length(auc)
lg <- log(auc / (1 - auc))
se_lg <- auc_se / (auc * (1 - auc))
ubar <- mean(se_lg^2)
b <- var(lg)
tv <- ubar + (1 + 1 / m) * b
r <- (1 + 1 / m) * b / ubar
df_old <- (m - 1) * (1 + 1 / r)^2
crit <- qt(0.975, df_old)
expit <- function(x) 1 / (1 + exp(-x))
qbar <- mean(lg)
recomputed <- list(logit_auc = lg, logit_se = se_lg, qbar_logit = qbar, ubar = ubar, b = b, t = tv, r = r,
                   df_rubin1987 = df_old, crit_t = crit, se_total_logit = sqrt(tv),
                   auc = expit(qbar), ci_lb = expit(qbar - crit * sqrt(tv)), ci_ub = expit(qbar + crit * sqrt(tv)),
                   ci_lb_z196 = expit(qbar - 1.96 * sqrt(tv)), ci_ub_z196 = expit(qbar + 1.96 * sqrt(tv)))
ms <- pool.scalar(lg, se_lg^2, n = Inf)  # mice, large-sample df = the same Rubin (1987) df
recomputed$mice_pool.scalar_n_inf_df <- ms$df
printed <- list(ci_lb = 0.5971, auc = 0.7771, ci_ub = 0.8913)
stopifnot(isTRUE(all.equal(round(c(recomputed$ci_lb, recomputed$auc, recomputed$ci_ub), 4),
                           c(printed$ci_lb, printed$auc, printed$ci_ub))))

write_json17(list(
  source = list(
    vignette = "psfmi 1.4.0 vignette 'Pooling AUC values' (Martijn W Heymans, 2023-06-15), inst/doc/Pooling_AUC_values.html and vignettes/Pooling_AUC_values.Rmd of the CRAN mirror repository cran/psfmi (commit 7b66937, 'version 1.4.0'); the same text is at https://stat.ethz.ch/CRAN/web/packages/psfmi/vignettes/Pooling_AUC_values.html",
    code = "cran/psfmi R/pool_auc.R at version 1.4.0 (same pooling since 0.7.1; 0.5.0 used 1.96)",
    note = "The vignette output is identical in psfmi 1.0.0, 1.1.0, 1.3.0 and 1.4.0. The example uses hand-given AUCs and SEs, no data set. psfmi could not be installed here (no Debian package; CRAN not reachable), so the full-precision numbers in 'recomputed' come from rubin_reference.R re-doing the formulas, checked against the printed 4-decimal output."
  ),
  call = "auc <- list(0.84, 0.78, 0.75, 0.71, 0.79); auc_se <- list(0.04, 0.05, 0.01, 0.02, 0.03); psfmi::pool_auc(auc, auc_se)  # nimp = 5, log_auc = TRUE",
  inputs = list(auc = auc, auc_se = auc_se, nimp = 5, log_auc = TRUE),
  printed_output = "                    95% Low C-statistic 95% Up\nC-statistic (logit)  0.5971      0.7771 0.8913",
  printed = printed,
  method = paste(
    "pool_auc (log_auc = TRUE) works on the logit scale: each AUC becomes log(AUC/(1-AUC)) and its SE becomes",
    "SE/(AUC(1-AUC)). Rubin's rules then give the mean logit, the within variance (mean of squared logit SEs),",
    "the between variance (sample variance of the logits, denominator m-1) and total variance within + (1+1/m) between.",
    "The CI half-width is a t quantile qt(0.975, df) times sqrt(total), with the original Rubin (1987) df",
    "(m-1)(1+1/r)^2, r = (1+1/m) between/within -- no Barnard-Rubin small-sample correction and no complete-data n.",
    "Pooled AUC and bounds are back-transformed with the inverse logit and rounded to 4 decimals.",
    "With log_auc = FALSE the raw AUCs and SEs are pooled the same way and the bounds are clipped to [0, 1].",
    "psfmi 0.5.0 used 1.96 in place of the t quantile."),
  recomputed = recomputed,
  lbpmilr = "Not used by this vignette. psfmi's data sets (data/lbpmilr.rda etc.) are not installable here (CRAN unreachable, no Debian package); their .rda files are only readable through the stored GitHub mirror of cran/psfmi, not from a package registry."
), "tests/reference/psfmi_pool_auc_vignette.json")
