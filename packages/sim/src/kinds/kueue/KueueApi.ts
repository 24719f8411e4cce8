// Where Kueue's kinds live in the API: one group, served at v1beta2 (preferred) and v1beta1 from one stored form.

/** The group and versions every Kueue kind is served at. */
export const kueueApi = { group: "kueue.x-k8s.io", versions: ["v1beta2", "v1beta1"] } as const
