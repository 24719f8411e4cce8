console.log("dispatch: nothing yet")
export {}
