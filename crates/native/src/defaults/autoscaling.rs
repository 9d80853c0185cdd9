//! autoscaling (pkg/apis/autoscaling/v2/defaults.go; v1's only default is minReplicas).

use super::value::{default_nil, is_empty_collection, obj_mut, obj_or_new, Obj};
use serde_json::{json, Value};

/// autoscaling/v1 `SetDefaults_HorizontalPodAutoscaler`: minReplicas nil → 1.
pub fn hpa_v1(o: &mut Obj) {
    if let Some(spec) = obj_or_new(o, "spec") {
        default_nil(spec, "minReplicas", Value::from(1));
    }
}

/// autoscaling/v2 `SetDefaults_HorizontalPodAutoscaler`: minReplicas 1; no metrics → CPU
/// utilization 80%; then `SetDefaults_HorizontalPodAutoscalerBehavior`. Newer source also
/// defaults `selectionStrategy`, a field absent from 1.35: not applied for ≤ 1.35.
pub fn hpa_v2(o: &mut Obj) {
    let Some(spec) = obj_or_new(o, "spec") else {
        return;
    };
    default_nil(spec, "minReplicas", Value::from(1));
    if is_empty_collection(spec, "metrics") {
        let cpu = json!([{
            "type": "Resource",
            "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 80}}
        }]);
        spec.insert("metrics".to_owned(), cpu);
    }
    if let Some(behavior) = obj_mut(spec, "behavior") {
        // GenerateHPAScaleUpRules / GenerateHPAScaleDownRules: the defaults with every
        // non-nil user field copied over, i.e. each nil field takes the default.
        if let Some(up) = obj_or_new(behavior, "scaleUp") {
            default_nil(up, "stabilizationWindowSeconds", Value::from(0));
            default_nil(up, "selectPolicy", Value::from("Max"));
            let policies = json!([
                {"type": "Pods", "value": 4, "periodSeconds": 15},
                {"type": "Percent", "value": 100, "periodSeconds": 15}
            ]);
            default_nil(up, "policies", policies);
        }
        if let Some(down) = obj_or_new(behavior, "scaleDown") {
            // stabilizationWindowSeconds stays nil: the controller flag decides it.
            default_nil(down, "selectPolicy", Value::from("Max"));
            let policies = json!([{"type": "Percent", "value": 100, "periodSeconds": 15}]);
            default_nil(down, "policies", policies);
        }
    }
}
