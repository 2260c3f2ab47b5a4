# pROC 1.18 power.roc.test for two ROC curves: the reference values of tests/test_planning_comparisons.py.
# Run: Rscript tests/reference/proc_power_two.R  (writes proc_power_two.json and proc_power_asah.csv here)
suppressMessages(library(pROC))
library(jsonlite)
here <- dirname(sub("--file=", "", grep("--file=", commandArgs(FALSE), value = TRUE)))
data(aSAH)
write.csv(aSAH[, c("outcome", "s100b", "ndka", "wfns")], file.path(here, "proc_power_asah.csv"), row.names = FALSE)
wfns <- as.numeric(aSAH$wfns)
out <- list(pilot = list(), binormal = list())
pairs <- list(c("s100b", "ndka"), c("s100b", "wfns"), c("ndka", "wfns"))
for (p in pairs) {
  x1 <- if (p[1] == "wfns") wfns else aSAH[[p[1]]]
  x2 <- if (p[2] == "wfns") wfns else aSAH[[p[2]]]
  r1 <- roc(aSAH$outcome, x1, levels = c("Good", "Poor"), direction = "<", quiet = TRUE)
  r2 <- roc(aSAH$outcome, x2, levels = c("Good", "Poor"), direction = "<", quiet = TRUE)
  for (pw in c(0.8, 0.9)) {
    for (alt in c("two.sided", "one.sided")) {
      s <- power.roc.test(r1, r2, power = pw, alternative = alt)
      out$pilot[[length(out$pilot) + 1]] <- list(first = p[1], second = p[2], power = pw, alternative = alt,
                                                 kind = "sample_size", ncases = s$ncases, ncontrols = s$ncontrols)
    }
  }
  s <- power.roc.test(r1, r2)
  out$pilot[[length(out$pilot) + 1]] <- list(first = p[1], second = p[2], alternative = "two.sided",
                                             kind = "power", ncases = s$ncases, ncontrols = s$ncontrols,
                                             power = s$power)
}
cases <- list(
  list(auc1 = 0.8, auc2 = 0.7, b1 = 1, b2 = 1, rn = 0.5, ra = 0.5, kappa = 1),
  list(auc1 = 0.85, auc2 = 0.75, b1 = 1.2, b2 = 0.8, rn = 0.3, ra = 0.6, kappa = 2),
  list(auc1 = 0.7, auc2 = 0.9, b1 = 1, b2 = 1, rn = 0, ra = 0, kappa = 3),
  list(auc1 = 0.95, auc2 = 0.9, b1 = 0.9, b2 = 1.1, rn = 0.7, ra = 0.4, kappa = 0.5)
)
for (cs in cases) {
  A1 <- qnorm(cs$auc1) * sqrt(1 + cs$b1^2)
  A2 <- qnorm(cs$auc2) * sqrt(1 + cs$b2^2)
  pars <- list(A1 = A1, B1 = cs$b1, A2 = A2, B2 = cs$b2, rn = cs$rn, ra = cs$ra, delta = cs$auc1 - cs$auc2)
  for (alt in c("two.sided", "one.sided")) {
    s <- power.roc.test(pars, power = 0.9, kappa = cs$kappa, alternative = alt)
    p <- power.roc.test(pars, ncases = 60, ncontrols = 60 * cs$kappa, alternative = alt)
    out$binormal[[length(out$binormal) + 1]] <- c(cs, list(alternative = alt, ncases = s$ncases,
                                                           ncontrols = s$ncontrols, power_at_60 = p$power))
  }
}
write(toJSON(out, digits = NA, auto_unbox = TRUE, pretty = TRUE), file.path(here, "proc_power_two.json"))
